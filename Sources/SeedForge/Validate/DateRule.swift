/// `validate: date`: a calendar date written YYYY-MM-DD that names a real day (not
/// `2025-02-30`, not `14/06/2024` or `2024-6-9`), so dates sort and compare as text: the
/// first and last visit of a trip come out right.
public struct DateRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "date",
        summary: "A calendar date YYYY-MM-DD that names a real day, e.g. 2024-06-14.",
        keys: ValidateStep.commonKeys + [RuleFields.key],
        details: #"""
            `2025-02-30`, `14/06/2024` and `2024-6-9` fail, so dates sort and compare as text, as
            `group-stats` `min`/`max` and `sort` do.
            """#,
        example: """
            - validate: date
              collection: places
              field: visitedDate
            """)

    let fields: [FieldID]

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        findings.checkFormat(
            fields, of: record, kind: "a date", format: "a calendar date written YYYY-MM-DD",
            isValid: { Timestamp.day($0) != nil }, example: "2024-06-14")
    }
}
