import Logging

/// Consecutive validate steps on one collection, checked as one pass: every rule looks at
/// a run of records, then a record that breaks any is rejected once, with all its
/// findings. The pass counts, per rule, the records it flagged and warned about, and its
/// time, over every run of records it is given (the whole collection, or batch by batch).
struct ValidationPass {
    let steps: [ValidateStep]
    let collection: CollectionID
    let schema: Schema
    private(set) var flagged: [Int]
    private(set) var warned: [Int]
    private(set) var seconds: [Double]

    init(_ steps: [ValidateStep], collection: CollectionID, state: RunState) {
        self.steps = steps
        self.collection = collection
        schema = state.schemas[loaded: collection]
        flagged = [Int](repeating: 0, count: steps.count)
        warned = flagged
        seconds = [Double](repeating: 0, count: steps.count)
    }

    var label: String { steps.map(\.label).joined(separator: ", ") }

    /// A block of consecutive validate steps as passes: one per collection, in the order
    /// the collections first appear, each with its steps in the block's order.
    static func passes(of block: [ValidateStep]) -> [(collection: CollectionID, steps: [ValidateStep])] {
        var collections: [CollectionID] = []
        for step in block where !collections.contains(step.collection) { collections.append(step.collection) }
        return collections.map { collection in (collection, block.filter { $0.collection == collection }) }
    }

    /// Whether a rule compares records with each other (`unique`): the pass must then see
    /// the whole collection at once.
    var comparesRecords: Bool { steps.contains { type(of: $0.rule).comparesRecords } }

    /// Checks a run of records with every rule, and keeps those no error rejects. Only the
    /// records some rule found something on get a list of findings, and the rejected ones
    /// are removed in place: a copy of the kept records (40 bytes each) and a list per
    /// record were, at a million records, the run's peak memory.
    mutating func check(_ records: inout [Record], state: RunState) {
        var found: [Int: [Finding]] = [:]
        for number in steps.indices {
            for (position, findings) in check(records, step: number, state: state) {
                found[position, default: []] += findings
            }
        }
        settle(found, in: &records, state: state)
    }

    /// The findings of the pass's step numbered `number` on a run of records, by position
    /// (only records it found something on), counted in its statistics. `checkAll` gives
    /// each record's findings when the rule's own `checkAll` is not the way (the finish of a
    /// `unique` begun in the shards, which has its keys' hashes).
    mutating func check(
        _ records: [Record], step number: Int, state: RunState, checkAll: ((ValidateStep) throws -> [[Finding]])? = nil
    ) rethrows -> [(Int, [Finding])] {
        let step = steps[number]
        let clock = ContinuousClock.now
        defer { seconds[number] += Runner.seconds(since: clock) }
        let results =
            try checkAll?(step)
            ?? step.rule.checkAll(
                records, schema: schema, code: step.code, severity: step.severity, threads: state.threads)
        var found: [(Int, [Finding])] = []
        for (position, findings) in results.enumerated() where !findings.isEmpty {
            found.append((position, findings))
            if findings.contains(where: { $0.severity == .error }) {
                flagged[number] += 1
            } else {
                warned[number] += 1
            }
        }
        return found
    }

    /// Settles the records' findings (`found`, by position, in step order) in input order,
    /// as every record was before (one without findings is kept and logs nothing), and
    /// removes the rejected records in place.
    func settle(_ found: [Int: [Finding]], in records: inout [Record], state: RunState) {
        guard !found.isEmpty else { return }
        var rejected: [Int] = []
        for position in found.keys.sorted() {
            if !state.settle(
                records[position], findings: found[position]!, in: collection, step: { "validate: \($0.rule)" })
            {
                rejected.append(position)
            }
        }
        var next = 0
        Reorder.remove(&records) { position in
            guard next < rejected.count, rejected[next] == position else { return false }
            next += 1
            return true
        }
    }

    /// Adds each rule's statistics (`total` records went in) and log line; returns the
    /// rules' threshold failures.
    func finish(total: Int, state: RunState, logger: Logger) -> [String] {
        var failures: [String] = []
        for (number, step) in steps.enumerated() {
            state.stepStats.append(
                StepStat(
                    label: step.label, stage: .validate, collection: collection, recordsIn: total,
                    recordsOut: total - flagged[number], rejected: flagged[number], duplicates: 0,
                    warnings: warned[number], seconds: seconds[number]))
            failures += Self.thresholdFailures(step, stat: state.stepStats[state.stepStats.count - 1])
            logger.info("\(step.label) \(collection): \(flagged[number]) rejected")
        }
        return failures
    }

    /// A validate step's thresholds, from its statistics: they count the records it flagged
    /// at its severity (rejected for errors, warned about for warnings).
    static func thresholdFailures(_ step: ValidateStep, stat: StepStat) -> [String] {
        var failures: [String] = []
        let hits = step.severity == .error ? stat.rejected : stat.warnings
        let verb = step.severity == .error ? "rejected" : "warned about"
        let (total, collection) = (stat.recordsIn, stat.collection)
        if let max = step.maxRejects, hits > max {
            failures.append("\(step.label) \(verb) \(hits) \(collection) records, more than its max-rejects \(max)")
        }
        if let fraction = step.maxRejectFraction, total > 0, Double(hits) / Double(total) > fraction {
            failures.append(
                "\(step.label) \(verb) \(hits) of \(total) \(collection) records, more than its max-reject-fraction \(fraction)"
            )
        }
        return failures
    }
}
