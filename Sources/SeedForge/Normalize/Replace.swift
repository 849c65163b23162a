import Foundation

/// `normalize: replace`: rewrites text matching an ICU regular expression
/// (NSRegularExpression), every match, with a replacement that may use `$1`, `$2` for
/// groups: `pattern: "\\s*\\(closed\\)$"`, `with: ""`. Into the field itself or a new text
/// field (`into`). The manifest's step entry counts the records it `changed`.
public struct Replace: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "replace",
        summary: "Replace every match of an ICU regular expression in text fields; counts the records changed.",
        keys: [
            CommonKeys.collection,
            KeySpec("field", required: true, "the text field (or fields) to rewrite"),
            KeySpec("pattern", required: true, "an ICU regular expression (NSRegularExpression syntax)"),
            KeySpec("with", required: true, "the replacement; $1, $2 ... insert groups, \\\\$ a dollar sign"),
            KeySpec("ignore-case", "match letters case-insensitively (default false)"),
            KeySpec("into", "a new text field for the result (one 'field' only; default: the field itself)"),
        ],
        details: #"""
            Every match is replaced: `pattern: "\\s*\\((temporarily )?closed\\)$"`, `with: ""` turns
            `The Hive (closed)` into `The Hive`. The manifest's entry for the step counts the records
            it `changed`. An invalid pattern or a field that is not text is a definition error.
            """#,
        example: """
            - normalize: replace
              collection: shops
              field: name
              pattern: "\\\\s*\\\\((closed|temporarily closed)\\\\)$"
              with: ""
            """)

    public let collection: CollectionID
    let fields: [FieldID]
    let targets: [FieldID]
    let regex: NSRegularExpression
    let template: String

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        fields = try plan.fields(config, key: "field", in: collection)
        let schema = plan.schema(collection)
        for field in fields where ![.string, .any].contains(schema[field].type) {
            throw (config["field"] ?? config.node).error(
                "'\(schema[field].name)' is \(schema[field].type.rawValue); replace rewrites text fields")
        }
        let patternNode = try config.require("pattern")
        let pattern = try patternNode.string("'pattern'")
        let options: NSRegularExpression.Options = try config.bool("ignore-case") == true ? [.caseInsensitive] : []
        do {
            regex = try NSRegularExpression(pattern: pattern, options: options)
        } catch {
            throw patternNode.error("'pattern' is not a valid ICU regular expression: \(pattern)")
        }
        template = try config.require("with").string("'with'")
        if let intoNode = config["into"] {
            guard fields.count == 1 else {
                throw intoNode.error(
                    "'into' takes the result of one field; name one 'field', or leave 'into' out to rewrite each in place"
                )
            }
            targets = [try plan.addField(config, type: .string, to: collection)]
        } else {
            targets = fields
        }
    }

    public func change(_ state: RunState) throws -> RecordChange {
        let changed = Counter()
        return RecordChange(step: "normalize: replace", parallel: true, counting: changed) { record in
            var didChange = false
            for (field, target) in zip(fields, targets) {
                guard case .string(let text) = record[field] else {
                    if target != field { record[target] = .null }
                    continue
                }
                let range = NSRange(text.startIndex..., in: text)
                let result = regex.stringByReplacingMatches(in: text, range: range, withTemplate: template)
                if result != text { didChange = true }
                record[target] = .string(result)
            }
            if didChange { changed.add(1) }
            return []
        }
    }
}

/// A count shared by the threads of a parallel step.
final class Counter: @unchecked Sendable {
    private var count = 0
    private let lock = NSLock()
    func add(_ amount: Int) { lock.withLock { count += amount } }
    var value: Int { lock.withLock { count } }
}
