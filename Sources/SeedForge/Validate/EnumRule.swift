/// `validate: enum`: the value must be one of a declared list (compared exactly).
public struct EnumRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "enum",
        summary: "The value must be one of the listed values, compared exactly.",
        keys: ValidateStep.commonKeys + [RuleFields.key, KeySpec("values", required: true, "the allowed values")],
        details: #"""
            A near miss gets a suggestion in the message.
            """#,
        example: """
            - validate: enum
              collection: attractions
              field: category
              values: [Food, Museum, Sports, Historical]
            """)

    let fields: [FieldID]
    let values: [Value]

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
        let node = try config.require("values")
        values = try node.list("'values'").map { try $0.value() }
        if values.isEmpty { throw node.error("'values' must list at least one value") }
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        for field in fields {
            let value = record[field]
            guard !value.isNull, !values.contains(value) else { continue }
            var message =
                "\(findings.schema[field].name) \(RuleFields.describe(value)) is not one of \(values.map(RuleFields.describe).joined(separator: ", "))"
            if case .string(let text) = value {
                message += Suggestion.phrase(for: text, in: values.compactMap(\.string))
            }
            findings.fail(field, message)
        }
    }
}
