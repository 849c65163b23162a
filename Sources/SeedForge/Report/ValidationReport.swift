/// Every finding of one or more validation runs, ready for a report format.
public struct ValidationReport: Sendable {
    public struct Entry: Sendable {
        public let pipeline: String
        public let collection: CollectionID?
        public let id: Value?
        public let finding: Finding
    }

    /// A pipeline that was validated: its name, definition file and the rules it ran
    /// (JUnit lists one test case per rule, failing or not).
    public struct PipelineInfo: Sendable {
        public let name: String
        public let file: String
        public let rules: [RuleCode]
    }

    public private(set) var entries: [Entry] = []
    public private(set) var pipelines: [PipelineInfo] = []
    /// Thresholds exceeded, per pipeline.
    public private(set) var thresholdFailures: [(pipeline: String, message: String)] = []

    public init() {}

    public mutating func add(_ pipeline: Pipeline) {
        var rules: [RuleCode] = []
        for case .validate(let step) in pipeline.steps where !rules.contains(step.code) { rules.append(step.code) }
        pipelines.append(PipelineInfo(name: pipeline.name, file: Paths.display(pipeline.file), rules: rules))
    }

    public mutating func add(_ result: RunResult) {
        for rejection in result.state.rejects {
            for finding in rejection.findings {
                entries.append(
                    Entry(
                        pipeline: result.dataset, collection: rejection.collection, id: rejection.id, finding: finding))
            }
        }
        for warning in result.state.warnings {
            entries.append(
                Entry(
                    pipeline: result.dataset, collection: warning.collection, id: warning.id, finding: warning.finding))
        }
        for (collection, error) in result.state.sourceErrors {
            entries.append(Entry(pipeline: result.dataset, collection: collection, id: nil, finding: error.finding))
        }
        thresholdFailures += result.thresholdFailures.map { (result.dataset, $0) }
    }

    /// A source file that could not be read as a whole.
    public mutating func add(_ error: SourceError, pipeline: String) {
        entries.append(Entry(pipeline: pipeline, collection: nil, id: nil, finding: error.finding))
    }

    public var errorCount: Int { entries.filter { $0.finding.severity == .error }.count }
    public var warningCount: Int { entries.count - errorCount }
    public var fileCount: Int { Set(entries.compactMap { $0.finding.location?.file }).count }

    /// Whether the run should fail: an error finding or threshold, or with `strict` any warning.
    public func fails(strict: Bool) -> Bool {
        errorCount > 0 || !thresholdFailures.isEmpty || (strict && warningCount > 0)
    }

    /// Entries in file, line, column order (findings without a place last).
    public var sorted: [Entry] {
        entries.enumerated().sorted { a, b in
            let l = a.element.finding.location
            let r = b.element.finding.location
            switch (l, r) {
            case (let l?, let r?):
                if l.file != r.file { return l.file < r.file }
                if l.line != r.line { return l.line < r.line }
                if l.column != r.column { return l.column < r.column }
            case (nil, _?): return false
            case (_?, nil): return true
            default: break
            }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// The offending value as shown in reports: compact JSON, cut to 100 characters.
    public static func shown(_ value: Value?) -> String? {
        guard let value else { return nil }
        let text = JSONWriter.compact(value)
        return text.count > 100 ? String(text.prefix(99)) + "…" : text
    }

    /// "N errors, M warnings in K files".
    public var summary: String {
        func plural(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }
        return "\(plural(errorCount, "error")), \(plural(warningCount, "warning")) in \(plural(fileCount, "file"))"
    }
}

extension ValidationReport.Entry {
    /// Where the finding is, beyond line and column (which alone do not find a record in a
    /// minified one-line file): the record's id, the value's JSON Pointer and the field, as
    /// `id "montana-honey", at /1/rating, field rating`. Every format's message ends with it.
    var whereabouts: [String] {
        var parts: [String] = []
        if let id, !id.isNull, let shown = ValidationReport.shown(id) { parts.append("id \(shown)") }
        if let pointer = finding.location?.pointer, !pointer.isEmpty { parts.append("at \(pointer)") }
        if let field = finding.field { parts.append("field \(field)") }
        return parts
    }

    /// ` (id "a", at /0/rating, field rating)`, or nothing.
    var whereaboutsSuffix: String {
        let parts = whereabouts
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }
}

/// How to print a report: how many findings to list (the summary always counts all)
/// and whether to colour it.
public struct ReportOptions: Sendable {
    public var maxFindings: Int?
    public var color: Bool

    public init(maxFindings: Int? = nil, color: Bool = false) {
        self.maxFindings = maxFindings
        self.color = color
    }

    /// Colour only for a terminal, and never when NO_COLOR holds a value
    /// (https://no-color.org: present and not empty).
    public static func colorWanted(isTerminal: Bool, environment: [String: String]) -> Bool {
        isTerminal && (environment["NO_COLOR"] ?? "").isEmpty
    }

    func listed(_ report: ValidationReport) -> [ValidationReport.Entry] {
        let all = report.sorted
        guard let maxFindings, all.count > maxFindings else { return all }
        return Array(all.prefix(maxFindings))
    }
}

/// The report formats of `seedforge validate --format`.
public enum ReportFormat: String, CaseIterable, Sendable {
    case text, json, github, junit, html

    public func render(_ report: ValidationReport, options: ReportOptions) -> String {
        switch self {
        case .text: return TextReport.render(report, options: options)
        case .json: return JSONReport.render(report, options: options)
        case .github: return GitHubReport.render(report, options: options)
        case .junit: return JUnitReport.render(report, options: options)
        case .html: return HTMLValidationReport.render(report, options: options)
        }
    }
}
