/// `validate: date`: a calendar date written YYYY-MM-DD that names a real day (not
/// `2025-02-30`, not `14/06/2024` or `2024-6-9`), so dates sort and compare as text: the
/// first and last visit of a trip come out right.
public struct DateRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "date",
        summary: "A calendar date YYYY-MM-DD that names a real day, e.g. 2024-06-14.",
        keys: ValidateStep.commonKeys + [RuleFields.key],
        example: """
            - validate: date
              collection: places
              field: visitedDate
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
                findings.fail(field, "\(name) must be a date text YYYY-MM-DD, found \(value.typeName)")
                continue
            }
            if Timestamp.day(text) == nil {
                findings.fail(field, "\(name) \(RuleFields.describe(value)) is not a calendar date written YYYY-MM-DD (e.g. 2024-06-14)")
            }
        }
    }
}
