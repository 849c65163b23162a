/// `validate: length`: text length in characters (grapheme clusters, what a person counts),
/// measured after trimming surrounding white space.
public struct LengthRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "length",
        summary: "Text length in characters, after trimming surrounding white space, within min..max.",
        keys: ValidateStep.commonKeys + [
            RuleFields.key,
            KeySpec("min", "fewest characters allowed"),
            KeySpec("max", "most characters allowed"),
        ],
        details: #"""
            Characters are what a reader counts, so `é` and `🐝` are one each; at least one of `min`
            and `max`.
            """#,
        example: """
            - validate: length
              collection: reviews
              field: title
              max: 80
            """)

    let fields: [FieldID]
    let min: Int?
    let max: Int?

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
        min = try config.int("min")
        max = try config.int("max")
        if min == nil && max == nil { throw config.error("\(config.what) needs 'min', 'max' or both") }
        if let min, min < 0 { throw config["min"]!.error("'min' must not be negative") }
        if let min, let max, min > max {
            throw config.error("'min' (\(min)) is greater than 'max' (\(max)) in \(config.what)")
        }
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        for field in fields {
            guard case .string(let text) = record[field] else { continue }
            let count = Trim.trimmed(text).count
            var name: String { findings.schema[field].name }
            if let min, count < min {
                findings.fail(field, "\(name) has \(count) characters, fewer than the minimum \(min)")
            } else if let max, count > max {
                findings.fail(field, "\(name) has \(count) characters, more than the maximum \(max)")
            }
        }
    }
}
