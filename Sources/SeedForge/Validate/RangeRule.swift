/// `validate: range`: a number within `min`..`max` (inclusive). Out-of-range values are
/// reported, never clamped or rescaled. Null passes (that is `required`'s job).
public struct RangeRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "range",
        summary: "A number must lie within min..max, inclusive. Values are reported, never clamped or rescaled.",
        keys: ValidateStep.commonKeys + [
            RuleFields.key,
            KeySpec(
                "min",
                #"the smallest value allowed (inclusive)"#
            ),
            KeySpec(
                "max",
                #"the largest value allowed (inclusive)"#
            ),
            KeySpec("hint", "text added to the message, e.g. why the range matters"),
        ],
        details: #"""
            At least one of `min` and `max`. A value that is not a number is a finding too.
            """#,
        example: """
            - validate: range
              collection: shops
              field: rating
              min: 0
              max: 5
              hint: ratings use a 0-5 scale and are never rescaled
            """)

    let fields: [FieldID]
    let min: Double?
    let max: Double?
    let hint: String?

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
        min = try config.number("min")
        max = try config.number("max")
        hint = try config.string("hint")
        if min == nil && max == nil { throw config.error("\(config.what) needs 'min', 'max' or both") }
        if let min, let max, min > max {
            throw config.error("'min' (\(min)) is greater than 'max' (\(max)) in \(config.what)")
        }
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        var suffix: String { hint.map { " (\($0))" } ?? "" }
        for field in fields {
            let value = record[field]
            guard !value.isNull else { continue }
            // The field's name only for a message, not read for the records that pass.
            var name: String { findings.schema[field].name }
            guard let number = value.number else {
                findings.fail(field, "\(name) must be a number, found \(value.typeName)")
                continue
            }
            // Messages are made only for values that fail (formatting a number costs more
            // than the check).
            if let min, number < min {
                findings.fail(
                    field,
                    "\(name) \(RuleFields.describe(value)) is below the minimum \(RuleFields.describe(limit: min))\(suffix)"
                )
            } else if let max, number > max {
                findings.fail(
                    field,
                    "\(name) \(RuleFields.describe(value)) is above the maximum \(RuleFields.describe(limit: max))\(suffix)"
                )
            }
        }
    }
}
