import Foundation
import Logging

/// Consecutive steps that change one record at a time (`RecordStep`s, and validate steps
/// whose rules look at one record at a time), all on one spilled collection, run as one
/// pass: each spilled batch is read once, goes through every step in order, and is
/// written once, where running them one by one reads and writes the whole collection
/// per step.
///
/// Nothing else changes: each step keeps its own statistics (records in and out,
/// rejected, warnings, seconds of its own work), and its rejects and warnings are
/// recorded after those of the steps before it, all in record order, as if the steps had
/// run one after the other.
struct FusedBlock {
    /// One step of the block (or one run of validate steps, checked as one pass as always).
    struct Part {
        enum Work {
            case change(RecordChange)
            case validation(ValidationPass)
        }
        let label: String
        let stage: Stage
        /// The run's phase while it works (see `RunState.phase`): 1 + its step's number.
        let phase: Int
        var work: Work
        var recordsIn = 0
        var recordsOut = 0
        var seconds = 0.0
        /// What the part rejected and warned about so far, held back until the block ends.
        var rejects: [Rejection] = []
        var warnings: [Warning] = []

        /// Runs the part on a batch of records.
        mutating func apply(_ records: inout [Record], collection: CollectionID, state: RunState) {
            let marks = (rejects: state.rejects.count, warnings: state.warnings.count)
            state.phase = phase
            recordsIn += records.count
            let clock = ContinuousClock.now
            switch work {
            case .change(let change):
                state.apply(change, to: &records, in: collection)
            case .validation(var pass):
                pass.check(&records, state: state)
                work = .validation(pass)
            }
            seconds += Runner.seconds(since: clock)
            recordsOut += records.count
            rejects += state.rejects[marks.rejects...]
            state.rejects.removeSubrange(marks.rejects...)
            warnings += state.warnings[marks.warnings...]
            state.warnings.removeSubrange(marks.warnings...)
        }
    }

    let collection: CollectionID
    let steps: [PlannedStep]
    let next: Int

    /// The block that starts at `start`, when the collection there is spilled and at
    /// least two steps fuse; `next` is the index of the step after it.
    static func starting(at start: Int, in steps: [PlannedStep], state: RunState) -> FusedBlock? {
        let collection = steps[start].collection
        guard state.count(collection) > 0, state.store(collection).isSpilled else { return nil }
        return scan(from: start, in: steps) { step, parts in parts == 0 || !type(of: step).preparesFromOwnRecords }
    }

    /// The block that starts the pipeline's steps, when it could run on the records while
    /// ingest spills them (`IngestSpillPass`): every part changes or checks a record by
    /// itself alone (no step reads another collection or its own collection as a whole).
    /// Whether the collection spills is known only once ingest has read it.
    static func atIngest(_ steps: [PlannedStep], state: RunState) -> FusedBlock? {
        guard !steps.isEmpty else { return nil }
        return scan(from: 0, in: steps) { step, _ in type(of: step).worksRecordByRecord }
    }

    /// The steps from `start` on one collection that fuse: each whole run of validate steps
    /// whose rules look at one record at a time, and each record step that `admits` (given
    /// how many parts come before it); nil unless at least two parts do.
    private static func scan(
        from start: Int, in steps: [PlannedStep], admits: (any RecordStep, Int) -> Bool
    ) -> FusedBlock? {
        let collection = steps[start].collection
        var index = start
        var parts = 0
        scan: while index < steps.count, steps[index].collection == collection {
            switch steps[index] {
            case .validate:
                // The whole run of validate steps, as `StepRunner` would group it.
                var end = index
                var group: [ValidateStep] = []
                while end < steps.count, case .validate(let step) = steps[end] {
                    group.append(step)
                    end += 1
                }
                guard group.allSatisfy({ $0.collection == collection && !type(of: $0.rule).comparesRecords })
                else { break scan }
                index = end
            case .step(let step, _, _):
                guard let recordStep = step as? any RecordStep, admits(recordStep, parts) else { break scan }
                index += 1
            }
            parts += 1
        }
        guard parts >= 2 else { return nil }
        return FusedBlock(collection: collection, steps: Array(steps[start..<index]), next: index)
    }

    /// The block's parts, prepared once and applied to batch after batch.
    final class Pass {
        let collection: CollectionID
        fileprivate(set) var parts: [Part]

        fileprivate init(collection: CollectionID, parts: [Part]) {
            self.collection = collection
            self.parts = parts
        }

        var label: String { parts.map(\.label).joined(separator: ", ") }

        /// Runs every part, in order, on a batch of records (which may drop some).
        func apply(_ records: inout [Record], state: RunState) {
            for number in parts.indices { parts[number].apply(&records, collection: collection, state: state) }
        }
    }

    /// Prepares the parts (each step's `RecordChange`, each run of validate steps' pass).
    func prepare(state: RunState) throws -> Pass {
        var parts: [Part] = []
        var index = 0
        let first = next - steps.count
        while index < steps.count {
            switch steps[index] {
            case .validate:
                let phase = 1 + first + index
                var group: [ValidateStep] = []
                while index < steps.count, case .validate(let step) = steps[index] {
                    group.append(step)
                    index += 1
                }
                let pass = ValidationPass(group, collection: collection, state: state)
                parts.append(Part(label: pass.label, stage: .validate, phase: phase, work: .validation(pass)))
            case .step(let step, let stage, _):
                let change = try (step as! any RecordStep).change(state)
                parts.append(
                    Part(label: steps[index].label, stage: stage, phase: 1 + first + index, work: .change(change)))
                index += 1
            }
        }
        return Pass(collection: collection, parts: parts)
    }

    /// Runs the block; returns the validate steps' threshold failures.
    func run(state: RunState, logger: Logger) throws -> [String] {
        let pass = try prepare(state: state)
        let label = pass.label
        let store = state.store(collection)
        let total = store.count
        state.spill.step = label
        state.progress?.begin(stage: "\(label) \(collection)", unit: "records", total: total, totalBytes: nil)
        let clock = ContinuousClock.now
        // The records still in memory go to disk first: the pass then holds one batch at
        // a time (changed in memory, a step adding a field would grow them all at once).
        try store.spillResident()
        try store.rewrite { pass.apply(&$0, state: state) }
        try state.spill.check()
        state.progress?.advance(items: total, bytes: 0, records: 0)
        state.releaseSourcePages()
        logger.info(
            "\(label) \(collection): one pass over the spilled records, \(String(format: "%.2f", Runner.seconds(since: clock))) s"
        )
        return finish(pass, state: state, logger: logger)
    }

    /// Books what the parts did (their rejects and warnings after those of the steps
    /// before them, their statistics); returns the validate steps' threshold failures.
    func finish(_ pass: Pass, state: RunState, logger: Logger) -> [String] {
        var failures: [String] = []
        for part in pass.parts {
            state.rejects += part.rejects
            state.warnings += part.warnings
            switch part.work {
            case .validation(let pass):
                failures += pass.finish(total: part.recordsIn, state: state, logger: logger)
            case .change(let change):
                let stat = StepStat(
                    label: part.label, stage: part.stage, collection: collection, recordsIn: part.recordsIn,
                    recordsOut: part.recordsOut, rejected: part.rejects.count, duplicates: 0,
                    warnings: part.warnings.count, seconds: part.seconds, changed: change.changed?.value)
                state.stepStats.append(stat)
                var line = "\(part.label) \(collection): \(stat.recordsIn) in, \(stat.recordsOut) out"
                if stat.rejected > 0 { line += ", \(stat.rejected) rejected" }
                logger.info("\(line)")
            }
        }
        return failures
    }
}
