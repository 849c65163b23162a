/// `validate: step`: a number must be a whole multiple of `step` counted from `base`
/// (review ratings 0.5, 1.0, ... 5.0). Compared with a tolerance of 1e-9 steps.
public struct StepRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "step",
        summary: "A number must be base + k * step for a whole k (e.g. ratings in half stars).",
        keys: ValidateStep.commonKeys + [
            RuleFields.key,
            KeySpec("step", required: true, "the increment, greater than 0"),
            KeySpec("base", "where the steps start (default 0)"),
        ],
        details: #"""
            The value must be `base + k·step` for a whole `k` (half-star ratings: `step: 0.5`).
            """#,
        example: """
            - validate: step
              collection: reviews
              field: rating
              step: 0.5
            """)

    let fields: [FieldID]
    let step: Double
    let base: Double

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
        let stepNode = try config.require("step")
        step = try stepNode.number("'step'")
        guard step > 0 else { throw stepNode.error("'step' must be greater than 0") }
        base = try config.number("base") ?? 0
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        for field in fields {
            let value = record[field]
            guard let number = value.number else { continue }
            let steps = (number - base) / step
            if abs(steps - steps.rounded()) > 1e-9 {
                let name = findings.schema[field].name
                findings.fail(
                    field,
                    "\(name) \(RuleFields.describe(value)) is not a multiple of \(RuleFields.describe(limit: step))\(base == 0 ? "" : " from \(RuleFields.describe(limit: base))")"
                )
            }
        }
    }
}
