/// `validate: timestamp`: an RFC 3339 / ISO 8601 date-time with a time zone
/// (`2025-09-17T10:15:00Z`), with real calendar dates.
public struct TimestampRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "timestamp",
        summary: "An RFC 3339 date-time with a time zone, e.g. 2025-09-17T10:15:00Z.",
        keys: ValidateStep.commonKeys + [RuleFields.key],
        example: """
            - validate: timestamp
              collection: reviews
              field: createdAt
            """)

    let fields: [FieldID]

    public init(config: ConfigMap, plan: PipelinePlan, collection: String) throws {
        fields = try RuleFields.resolve(config, plan, collection)
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        for field in fields {
            let value = record[field]
            guard !value.isNull else { continue }
            let name = findings.schema[field].name
            guard case .string(let text) = value else {
                findings.fail(field, "\(name) must be an RFC 3339 timestamp text, found \(value.typeName)")
                continue
            }
            if Timestamp.parse(text) == nil {
                findings.fail(field, "\(name) \(RuleFields.describe(value)) is not a valid RFC 3339 timestamp (e.g. 2025-09-17T10:15:00Z)")
            }
        }
    }
}
