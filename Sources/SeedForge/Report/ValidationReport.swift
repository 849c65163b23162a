/// Every finding of one or more validation runs, ready for a report format.
public struct ValidationReport: Sendable {
    public struct Entry: Sendable {
        public let dataset: String
        public let collection: String
        public let id: Value?
        public let finding: Finding
    }

    public private(set) var entries: [Entry] = []
    /// Failures that are not findings: thresholds exceeded, a source that cannot be read.
    public private(set) var failures: [String] = []

    public init() {}

    public mutating func add(_ result: RunResult) {
        for rejection in result.state.rejects {
            for finding in rejection.findings {
                entries.append(Entry(dataset: result.dataset, collection: rejection.collection, id: rejection.id, finding: finding))
            }
        }
        for warning in result.state.warnings {
            entries.append(Entry(dataset: result.dataset, collection: warning.collection, id: warning.id, finding: warning.finding))
        }
        failures += result.thresholdFailures.map { "\(result.dataset): \($0)" }
    }

    public mutating func addFailure(_ message: String) { failures.append(message) }

    public var errorCount: Int { entries.filter { $0.finding.severity == .error }.count }
    public var warningCount: Int { entries.count - errorCount }
    public var fileCount: Int { Set(entries.compactMap { $0.finding.location?.file }).count }

    /// Entries in file, line, column order (findings without a place last).
    public var sorted: [Entry] {
        entries.enumerated().sorted { a, b in
            let l = a.element.finding.location
            let r = b.element.finding.location
            switch (l, r) {
            case let (l?, r?):
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
}
