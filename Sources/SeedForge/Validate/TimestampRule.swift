/// `validate: timestamp`: an RFC 3339 / ISO 8601 date-time with a time zone
/// (`2025-09-17T10:15:00Z`), with real calendar dates.
public struct TimestampRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "timestamp",
        summary: "An RFC 3339 date-time with a time zone, e.g. 2025-09-17T10:15:00Z.",
        keys: ValidateStep.commonKeys + [RuleFields.key],
        details: #"""
            With a zone: `2025-09-17T10:15:00Z`, `2025-09-17T12:15:00+02:00`, with an optional
            fraction; calendar dates are checked (`2025-02-30` fails).
            """#,
        example: """
            - validate: timestamp
              collection: reviews
              field: createdAt
            """)

    let fields: [FieldID]

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        findings.checkFormat(
            fields, of: record, kind: "an RFC 3339 timestamp", format: "a valid RFC 3339 timestamp",
            isValid: { Timestamp.instant($0) != nil }, example: "2025-09-17T10:15:00Z")
    }
}
