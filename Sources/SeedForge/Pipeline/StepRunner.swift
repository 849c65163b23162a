import Logging

/// The steps of a run, in the pipeline's order: consecutive validate steps as one pass,
/// every other step on its own; each leaves its statistics and progress line.
enum StepRunner {
    /// Runs the steps numbered `range` (default: all); returns the per-rule threshold
    /// failures.
    static func run(
        _ pipeline: Pipeline, state: RunState, logger: Logger, steps range: Range<Int>? = nil
    ) throws -> [String] {
        var thresholdFailures: [String] = []
        let range = range ?? pipeline.steps.indices
        var index = range.lowerBound
        while index < range.upperBound {
            if case .validate = pipeline.steps[index] {
                var block: [ValidateStep] = []
                while index < range.upperBound, case .validate(let step) = pipeline.steps[index] {
                    block.append(step)
                    index += 1
                }
                thresholdFailures += try runValidation(
                    block, startingAt: index - block.count, state: state, logger: logger)
                state.releaseSourcePages()
                continue
            }
            guard case .step(let step, let stage, _) = pipeline.steps[index] else { break }
            let label = pipeline.steps[index].label
            let before = (
                state.count(step.collection), state.rejects.count, state.duplicates.count, state.warnings.count
            )
            let clock = ContinuousClock.now
            state.phase = 1 + index
            state.changedByStep = nil
            state.spill.step = label
            state.progress?.begin(
                stage: "\(label) \(step.collection)", unit: "records", total: before.0, totalBytes: nil)
            try step.run(state)
            try state.spill.check()
            state.progress?.advance(items: before.0, bytes: 0, records: 0)
            state.releaseSourcePages()
            state.stepStats.append(
                StepStat(
                    label: label, stage: stage, collection: step.collection, recordsIn: before.0,
                    recordsOut: state.count(step.collection), rejected: state.rejects.count - before.1,
                    duplicates: state.duplicates.count - before.2, warnings: state.warnings.count - before.3,
                    seconds: Runner.seconds(since: clock), changed: state.changedByStep))
            let stat = state.stepStats[state.stepStats.count - 1]
            var line = "\(label) \(step.collection): \(stat.recordsIn) in, \(stat.recordsOut) out"
            if stat.rejected > 0 { line += ", \(stat.rejected) rejected" }
            if stat.duplicates > 0 { line += ", \(stat.duplicates) duplicates" }
            logger.info("\(line)")
            index += 1
        }
        state.spill.step = "emit"
        return thresholdFailures
    }

    /// Runs consecutive validate steps as one pass per collection, so a record that
    /// breaks several rules is rejected once, with all its findings. Returns per-rule
    /// threshold failures.
    static func runValidation(
        _ block: [ValidateStep], startingAt start: Int, state: RunState, logger: Logger
    ) throws -> [String] {
        var failures: [String] = []
        var collections: [String] = []
        for step in block where !collections.contains(step.collection) { collections.append(step.collection) }
        for collection in collections {
            let steps = block.filter { $0.collection == collection }
            state.phase = 1 + start + block.firstIndex { $0.collection == collection }!
            state.spill.step = steps.map(\.label).joined(separator: ", ")
            let schema = state.schemas[collection]!
            let total = state.count(collection)
            var flagged = [Int](repeating: 0, count: steps.count)
            var warned = [Int](repeating: 0, count: steps.count)
            var seconds = [Double](repeating: 0, count: steps.count)
            // Checks a run of records with every rule, and keeps those no error rejects.
            func pass(_ records: inout [Record]) {
                var perRecord = [[Finding]](repeating: [], count: records.count)
                for (number, step) in steps.enumerated() {
                    let clock = ContinuousClock.now
                    let results = step.rule.checkAll(
                        records, schema: schema, code: step.code, severity: step.severity, threads: state.threads)
                    for (position, findings) in results.enumerated() where !findings.isEmpty {
                        perRecord[position] += findings
                        if findings.contains(where: { $0.severity == .error }) {
                            flagged[number] += 1
                        } else {
                            warned[number] += 1
                        }
                    }
                    seconds[number] += Runner.seconds(since: clock)
                }
                var kept: [Record] = []
                kept.reserveCapacity(records.count)
                for (position, record) in records.enumerated() {
                    if state.settle(
                        record, findings: perRecord[position], in: collection, step: { "validate: \($0.rule)" })
                    {
                        kept.append(record)
                    }
                }
                records = kept
            }
            state.progress?.begin(
                stage: "\(steps.map(\.label).joined(separator: ", ")) \(collection)", unit: "records", total: total,
                totalBytes: nil)
            defer { state.progress?.advance(items: total, bytes: 0, records: 0) }
            let store = state.store(collection)
            if store.isSpilled, steps.contains(where: { type(of: $0.rule).comparesRecords }) {
                // A rule comparing records with each other sees them all at once.
                var records = store.take()
                pass(&records)
                store.replace(with: records)
            } else {
                try store.rewrite(pass)
            }
            for (number, step) in steps.enumerated() {
                state.stepStats.append(
                    StepStat(
                        label: step.label, stage: .validate, collection: collection, recordsIn: total,
                        recordsOut: total - flagged[number], rejected: flagged[number], duplicates: 0,
                        warnings: warned[number], seconds: seconds[number]))
                failures += thresholdFailures(step, stat: state.stepStats[state.stepStats.count - 1])
                logger.info("\(step.label) \(collection): \(flagged[number]) rejected")
            }
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
