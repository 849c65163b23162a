/// How serious a finding is. Errors reject the record; warnings are reported and kept.
public enum Severity: String, Sendable, CaseIterable {
    case error
    case warning
}

/// One thing a rule or source found wrong with the data: a rule code, a message, where,
/// which field and the offending value. Findings are data, routed to the rejects output.
public struct Finding: Sendable {
    public var rule: RuleCode
    public var severity: Severity
    public var message: String
    public var location: Location?
    public var field: String?
    public var value: Value?

    public init(
        rule: RuleCode, severity: Severity = .error, message: String, location: Location? = nil, field: String? = nil,
        value: Value? = nil
    ) {
        self.rule = rule
        self.severity = severity
        self.message = message
        self.location = location
        self.field = field
        self.value = value
    }
}
