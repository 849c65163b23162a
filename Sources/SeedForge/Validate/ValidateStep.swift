/// A `validate:` step: one rule applied to every record of a collection, with its
/// severity and reject thresholds. Consecutive validate steps run as one pass, so a
/// record that breaks several rules is reported with all of them.
public struct ValidateStep: Sendable {
    public let rule: any Rule
    public let code: RuleCode
    public let collection: CollectionID
    public let severity: Severity
    public let maxRejects: Int?
    public let maxRejectFraction: Double?

    static let commonKeys: [KeySpec] = [
        CommonKeys.collection, CommonKeys.severity, CommonKeys.maxRejects, CommonKeys.maxRejectFraction,
    ]

    init(kind: any Rule.Type, config: ConfigMap, plan: PipelinePlan) throws {
        code = RuleCode(rawValue: kind.spec.name)
        collection = try plan.collection(config)
        severity = try config.choice("severity", Severity.self, choices: Severity.allCases) ?? .error
        let limits = try RejectLimits(config)
        maxRejects = limits.maxRejects
        maxRejectFraction = limits.maxRejectFraction
        rule = try kind.init(config: config, plan: plan, collection: collection)
    }

    public var label: String { "validate: \(code)" }
}
