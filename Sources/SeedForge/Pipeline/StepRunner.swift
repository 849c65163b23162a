import Logging

/// The steps of a run, in the pipeline's order: consecutive validate steps as one pass,
/// every other step on its own, except that consecutive record-by-record steps on a
/// spilled collection run as one pass over it (`FusedBlock`); each step leaves its
/// statistics and progress line.
enum StepRunner {
    /// Runs the steps numbered `range` (default: all); returns the per-rule threshold
    /// failures.
    static func run(
        _ pipeline: Pipeline, state: RunState, logger: Logger, steps range: Range<Int>? = nil
    ) throws -> [String] {
        var thresholdFailures: [String] = []
        let range = range ?? pipeline.steps.indices
        // A block never runs past the range (a sharded run stops at its last step).
        let steps = Array(pipeline.steps[..<range.upperBound])
        var index = range.lowerBound
        while index < range.upperBound {
            if let block = FusedBlock.starting(at: index, in: steps, state: state) {
                thresholdFailures += try block.run(state: state, logger: logger)
                index = block.next
                continue
            }
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
            try measure(step, label: label, stage: stage, index: index, state: state, progress: true) {
                try step.run(state)
            }
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

    /// Runs `body` as step number `index` of the pipeline (`step`, on its collection): the
    /// run's phase and labels set for it, then the spill checked, source pages and (past the
    /// limit) freed memory given back, and its statistics appended: records in and out, and
    /// the rejects, duplicates and warnings it added, its time.
    static func measure(
        _ step: any Step, label: String, stage: Stage, index: Int, state: RunState, progress: Bool = false,
        _ body: () throws -> Void
    ) throws {
        let before = (
            state.count(step.collection), state.rejects.count, state.duplicateLog.count, state.warnings.count
        )
        let clock = ContinuousClock.now
        state.phase = 1 + index
        state.changedByStep = nil
        state.spill.step = label
        if progress {
            state.progress?.begin(
                stage: "\(label) \(step.collection)", unit: "records", total: before.0, totalBytes: nil)
        }
        try body()
        try state.spill.check()
        if progress { state.progress?.advance(items: before.0, bytes: 0, records: 0) }
        state.releaseSourcePages()
        // Past the limit, what a step freed (a sort's runs, a dedupe's duplicates read
        // back) goes back to the system before the next step gathers its own.
        if state.spill.spills > 0 { state.spill.returnFreedMemory() }
        state.stepStats.append(
            StepStat(
                label: label, stage: stage, collection: step.collection, recordsIn: before.0,
                recordsOut: state.count(step.collection), rejected: state.rejects.count - before.1,
                duplicates: state.duplicateLog.count - before.2, warnings: state.warnings.count - before.3,
                seconds: Runner.seconds(since: clock), changed: state.changedByStep))
    }

    /// Runs consecutive validate steps as one pass per collection, so a record that
    /// breaks several rules is rejected once, with all its findings. Returns per-rule
    /// threshold failures.
    static func runValidation(
        _ block: [ValidateStep], startingAt start: Int, state: RunState, logger: Logger
    ) throws -> [String] {
        var failures: [String] = []
        for (collection, steps) in ValidationPass.passes(of: block) {
            var pass = ValidationPass(steps, collection: collection, state: state)
            state.phase = 1 + start + block.firstIndex { $0.collection == collection }!
            state.spill.step = pass.label
            let total = state.count(collection)
            state.progress?.begin(stage: "\(pass.label) \(collection)", unit: "records", total: total, totalBytes: nil)
            defer { state.progress?.advance(items: total, bytes: 0, records: 0) }
            let store = state.store(collection)
            if store.isSpilled, pass.comparesRecords {
                // A rule comparing records with each other sees them all at once.
                var records = store.take()
                pass.check(&records, state: state)
                store.replace(with: records)
            } else {
                try store.rewrite { pass.check(&$0, state: state) }
            }
            failures += pass.finish(total: total, state: state, logger: logger)
        }
        return failures
    }

    /// The validate steps among `steps` in the order their statistics and thresholds come:
    /// each block of consecutive validate steps pass by pass (see `ValidationPass.passes`).
    static func validationOrder(_ steps: ArraySlice<PlannedStep>) -> [ValidateStep] {
        var ordered: [ValidateStep] = []
        var block: [ValidateStep] = []
        for step in steps {
            if case .validate(let validate) = step {
                block.append(validate)
                continue
            }
            ordered += ValidationPass.passes(of: block).flatMap(\.steps)
            block = []
        }
        return ordered + ValidationPass.passes(of: block).flatMap(\.steps)
    }
}
