import Foundation

/// `validate: pattern`: text must match a regular expression (ICU syntax, anchored to the
/// whole text), e.g. a two-letter country code or a UUID.
public struct PatternRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "pattern",
        summary: "Text must match a regular expression as a whole (ICU syntax).",
        keys: ValidateStep.commonKeys + [
            RuleFields.key,
            KeySpec("regex", required: true, "the regular expression the whole text must match"),
            KeySpec("description", "what the pattern means, for messages (e.g. 'a UUID')"),
        ],
        example: """
            - validate: pattern
              collection: reviews
              field: id
              regex: "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
              description: a UUID
            """)

    let fields: [FieldID]
    nonisolated(unsafe) let regex: NSRegularExpression
    let meaning: String

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
        let node = try config.require("regex")
        let pattern = try node.string("'regex'")
        do {
            regex = try NSRegularExpression(pattern: "^(?:" + pattern + ")$")
        } catch {
            throw node.error("'regex' is not a valid regular expression: \(pattern)")
        }
        meaning = try config.string("description") ?? "the pattern \(pattern)"
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        for field in fields {
            guard case .string(let text) = record[field] else { continue }
            let range = NSRange(text.startIndex..., in: text)
            if regex.firstMatch(in: text, range: range) == nil {
                findings.fail(
                    field,
                    "\(findings.schema[field].name) \(RuleFields.describe(.string(text))) does not match \(meaning)")
            }
        }
    }
}
