import Logging

/// The steps of a run, in the pipeline's order: consecutive validate steps as one pass,
/// every other step on its own; each leaves its statistics and progress line.
enum StepRunner {
    /// Runs every step; returns the per-rule threshold failures.
    static func run(_ pipeline: Pipeline, state: RunState, logger: Logger) throws -> [String] {
        var thresholdFailures: [String] = []
        var index = 0
        while index < pipeline.steps.count {
            if case .validate = pipeline.steps[index] {
                var block: [ValidateStep] = []
                while index < pipeline.steps.count, case .validate(let step) = pipeline.steps[index] {
                    block.append(step)
                    index += 1
                }
                thresholdFailures += runValidation(block, state: state, logger: logger)
                state.releaseSourcePages()
                continue
            }
            guard case .step(let step, let stage, _) = pipeline.steps[index] else { break }
            let label = pipeline.steps[index].label
            let before = (
                state.records(step.collection).count, state.rejects.count, state.duplicates.count, state.warnings.count
            )
            let clock = ContinuousClock.now
            state.changedByStep = nil
            state.progress?.begin(
                stage: "\(label) \(step.collection)", unit: "records", total: before.0, totalBytes: nil)
            try step.run(state)
            state.progress?.advance(items: before.0, bytes: 0, records: 0)
            state.releaseSourcePages()
            state.stepStats.append(
                StepStat(
                    label: label, stage: stage, collection: step.collection, recordsIn: before.0,
                    recordsOut: state.records(step.collection).count, rejected: state.rejects.count - before.1,
                    duplicates: state.duplicates.count - before.2, warnings: state.warnings.count - before.3,
                    seconds: Runner.seconds(since: clock), changed: state.changedByStep))
            let stat = state.stepStats[state.stepStats.count - 1]
            var line = "\(label) \(step.collection): \(stat.recordsIn) in, \(stat.recordsOut) out"
            if stat.rejected > 0 { line += ", \(stat.rejected) rejected" }
            if stat.duplicates > 0 { line += ", \(stat.duplicates) duplicates" }
            logger.info("\(line)")
            index += 1
        }
        return thresholdFailures
    }

    /// Runs consecutive validate steps as one pass per collection, so a record that
    /// breaks several rules is rejected once, with all its findings. Returns per-rule
    /// threshold failures.
    static func runValidation(_ block: [ValidateStep], state: RunState, logger: Logger) -> [String] {
        var failures: [String] = []
        var collections: [String] = []
        for step in block where !collections.contains(step.collection) { collections.append(step.collection) }
        for collection in collections {
            let records = state.records(collection)
            let schema = state.schemas[collection]!
            var perRecord = [[Finding]](repeating: [], count: records.count)
            for step in block where step.collection == collection {
                let clock = ContinuousClock.now
                state.progress?.begin(
                    stage: "\(step.label) \(collection)", unit: "records", total: records.count, totalBytes: nil)
                let results = step.rule.checkAll(
                    records, schema: schema, code: step.code, severity: step.severity, threads: state.threads)
                state.progress?.advance(items: records.count, bytes: 0, records: 0)
                var flagged = 0
                var warned = 0
                for (position, findings) in results.enumerated() where !findings.isEmpty {
                    perRecord[position] += findings
                    if findings.contains(where: { $0.severity == .error }) { flagged += 1 } else { warned += 1 }
                }
                state.stepStats.append(
                    StepStat(
                        label: step.label, stage: .validate, collection: collection, recordsIn: records.count,
                        recordsOut: records.count - flagged, rejected: flagged, duplicates: 0, warnings: warned,
                        seconds: Runner.seconds(since: clock)))
                // A rule's thresholds count the records it flagged at its severity
                // (rejected for errors, warned about for warnings).
                let hits = step.severity == .error ? flagged : warned
                let verb = step.severity == .error ? "rejected" : "warned about"
                if let max = step.maxRejects, hits > max {
                    failures.append(
                        "\(step.label) \(verb) \(hits) \(collection) records, more than its max-rejects \(max)")
                }
                if let fraction = step.maxRejectFraction, !records.isEmpty,
                    Double(hits) / Double(records.count) > fraction
                {
                    failures.append(
                        "\(step.label) \(verb) \(hits) of \(records.count) \(collection) records, more than its max-reject-fraction \(fraction)"
                    )
                }
                logger.info("\(step.label) \(collection): \(flagged) rejected")
            }
            var kept: [Record] = []
            for (position, record) in records.enumerated() {
                if state.settle(record, findings: perRecord[position], in: collection, step: { "validate: \($0.rule)" })
                {
                    kept.append(record)
                }
            }
            state.collections[collection] = kept
        }
        return failures
    }
}
