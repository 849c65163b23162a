/// `validate: only-when`: fields that only mean something when a boolean field is true,
/// such as a rating of a place not yet visited. A value (any non-null value, empty text
/// included) given while `when` is false or null is a finding; the value is reported as
/// it is, never dropped silently. A `when` value that is not a boolean is a finding too.
public struct OnlyWhenRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "only-when",
        summary: "A field may only hold a value when a boolean field is true (a rating only for visited places).",
        keys: ValidateStep.commonKeys + [
            RuleFields.key,
            KeySpec("when", required: true, "the boolean field that must be true for the field to hold a value"),
        ],
        details: #"""
            Any non-null value, empty text included, given while `when` is false or missing is a
            finding; it is reported, never dropped. A `when` value that is not true or false (an
            `any` field holding `"true"`) is a finding on `when`.
            """#,
        example: """
            - validate: only-when
              collection: places
              field: rating
              when: isVisited
            """)

    let fields: [FieldID]
    let condition: FieldID

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
        condition = try plan.field(config, key: "when", in: collection)
        let spec = plan.schema(collection)[condition]
        guard spec.type == .boolean || spec.type == .any else {
            throw config["when"]!.error("'when' needs a boolean field; '\(spec.name)' is \(spec.type.rawValue)")
        }
        if fields.contains(condition) {
            throw config["when"]!.error("'\(spec.name)' cannot be both the field and its condition")
        }
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        let flag = record[condition]
        guard flag != .bool(true) else { return }
        let conditionName = findings.schema[condition].name
        let given = fields.filter { !record[$0].isNull }
        guard !given.isEmpty else { return }
        if case .bool = flag {
        } else if !flag.isNull {
            let names = given.map { findings.schema[$0].name }.joined(separator: ", ")
            findings.fail(
                condition,
                "\(conditionName) \(RuleFields.describe(flag)) is not true or false, so whether \(names) may be given cannot be checked"
            )
            return
        }
        let state = flag.isNull ? "not given" : RuleFields.describe(flag)
        for field in given {
            let name = findings.schema[field].name
            findings.fail(
                field,
                "\(name) \(RuleFields.describe(record[field])) is given, but \(conditionName) is \(state): \(name) only applies when \(conditionName) is true"
            )
        }
    }
}
