import Logging

/// Validate blocks with a rule that compares records (`unique`), begun in the shards. Such
/// a block is the last a shard runs: in a pass with such a rule the shard runs the other
/// rules on its records and keeps what they found on each, unsettled, with every record
/// (a record those rules reject still holds its key first in a plain run, and is rejected
/// with the `unique` finding too when its key came before). The finish runs the rules that
/// compare records on all records, in a plain run's order, adds their findings to the
/// shards' in step order, and settles every record as a plain run's pass does: the same
/// records rejected or warned about, with the same findings and messages (the one
/// naming the earlier record's location included), in the same order. A pass whose rules
/// all look at one record at a time runs whole in the shards, as before.
enum ShardUnique {
    /// What a shard's rules found on one record of a pass left unsettled: each finding
    /// with the number of its step in the pass, in step order.
    struct Found {
        var steps: [Int] = []
        var findings: [Finding] = []
    }

    /// The validate block the shards ran last (the steps before `split`), when one of its
    /// rules compares records.
    static func block(_ pipeline: Pipeline, split: Int) -> Range<Int>? {
        var start = split
        while start > 0, case .validate = pipeline.steps[start - 1] { start -= 1 }
        let compares = pipeline.steps[start..<split].contains { step in
            guard case .validate(let validate) = step else { return false }
            return type(of: validate.rule).comparesRecords
        }
        return compares ? start..<split : nil
    }

    private static func validateSteps(_ pipeline: Pipeline, _ block: Range<Int>) -> [ValidateStep] {
        pipeline.steps[block].compactMap { step in
            guard case .validate(let validate) = step else { return nil }
            return validate
        }
    }

    /// Runs the block in a shard: each pass whose rules look at one record at a time as a
    /// plain run does; in a pass with a rule that compares records, the other rules, whose
    /// findings stay unsettled (returned by collection, then by the record's position)
    /// and whose records all stay. Each rule's statistics count what it flagged here (a
    /// rule that compares records nothing yet).
    static func begin(
        _ pipeline: Pipeline, block: Range<Int>, state: RunState, logger: Logger
    ) throws -> [CollectionID: [Int: Found]] {
        let steps = validateSteps(pipeline, block)
        var unsettled: [CollectionID: [Int: Found]] = [:]
        for (collection, passSteps) in ValidationPass.passes(of: steps) {
            var pass = ValidationPass(passSteps, collection: collection, state: state)
            state.phase = 1 + block.lowerBound + steps.firstIndex { $0.collection == collection }!
            state.spill.step = pass.label
            let total = state.count(collection)
            let store = state.store(collection)
            if pass.comparesRecords {
                var found: [Int: Found] = [:]
                var offset = 0
                try store.forEachBatch { batch in
                    let records = Array(batch)
                    for number in passSteps.indices where !type(of: passSteps[number].rule).comparesRecords {
                        for (position, findings) in pass.check(records, step: number, state: state) {
                            found[offset + position, default: Found()].steps += repeatElement(
                                number, count: findings.count)
                            found[offset + position]!.findings += findings
                        }
                    }
                    offset += records.count
                }
                unsettled[collection] = found
            } else {
                try store.rewrite { pass.check(&$0, state: state) }
            }
            // Thresholds are checked by the finish, on the counts of every shard.
            _ = pass.finish(total: total, state: state, logger: logger)
        }
        state.releaseSourcePages()
        return unsettled
    }

    /// Completes the block the shards began (`block`) on the records `ShardRun.restore`
    /// put back (`texts`: the partial's files as read again): for each pass with a rule
    /// that compares records, those rules run on the whole collection, their findings join
    /// the shards' unsettled ones (`partial.pending`) in step order, every record is
    /// settled in a plain run's order, and the rules' counts go into the shards'
    /// statistics of the block.
    static func finish(
        _ partial: Partial, pipeline: Pipeline, block: Range<Int>, texts: [SourceText], state: RunState,
        logger: Logger
    ) throws {
        let steps = validateSteps(pipeline, block)
        let numbers = texts.map(\.fileNumber)
        // The block's statistics are the last the shards left, pass by pass.
        var statistic = state.stepStats.count - steps.count
        for (collection, passSteps) in ValidationPass.passes(of: steps) {
            defer { statistic += passSteps.count }
            let comparing = passSteps.indices.filter { type(of: passSteps[$0].rule).comparesRecords }
            guard !comparing.isEmpty else { continue }
            var pass = ValidationPass(passSteps, collection: collection, state: state)
            state.phase = 1 + block.lowerBound + steps.firstIndex { $0.collection == collection }!
            state.spill.step = pass.label
            let store = state.store(collection)
            // The whole collection at once, as a plain run's pass with such a rule sees it.
            var records = store.take()
            var found: [Int: [(step: Int, finding: Finding)]] = [:]
            // The shards' findings, by place: the records are in the partial's order, a
            // file's records by their index in it, and so are the pending findings.
            let pending = partial.pending.filter { $0.collection == collection }
            var next = 0
            var position = 0
            var indexInFile: [Int: Int] = [:]
            for segment in partial.segments where segment.collection == collection {
                guard segment.run < 0, segment.losers == nil else {
                    throw InternalFailure("a partial holds sorted runs or a dedupe's losers of \(collection)")
                }
                let first = indexInFile[segment.file, default: 0]
                for index in first..<first + segment.count {
                    while next < pending.count, pending[next].place == Partial.Place(file: segment.file, index: index) {
                        for (step, finding) in zip(pending[next].steps, pending[next].findings) {
                            found[position, default: []].append((step, finding.inFiles(numbers)))
                        }
                        next += 1
                    }
                    position += 1
                }
                indexInFile[segment.file] = first + segment.count
            }
            guard next == pending.count, position == records.count else {
                throw InternalFailure("the shards' findings of \(pass.label) are not on their partials' records")
            }
            for number in comparing {
                for (position, findings) in pass.check(records, step: number, state: state) {
                    found[position, default: []] += findings.map { (number, $0) }
                }
            }
            // In step order, a step's findings as it found them.
            let settled = found.mapValues { list in
                list.enumerated().sorted { ($0.element.step, $0.offset) < ($1.element.step, $1.offset) }
                    .map(\.element.finding)
            }
            found = [:]
            pass.settle(settled, in: &records, state: state)
            store.replace(with: records)
            for number in comparing {
                let old = state.stepStats[statistic + number]
                guard old.label == passSteps[number].label, old.collection == collection else {
                    throw InternalFailure("the statistics of the shards' validate steps are not one a step")
                }
                state.stepStats[statistic + number] = StepStat(
                    label: old.label, stage: old.stage, collection: collection, recordsIn: old.recordsIn,
                    recordsOut: old.recordsIn - pass.flagged[number], rejected: pass.flagged[number], duplicates: 0,
                    warnings: pass.warned[number], seconds: old.seconds + pass.seconds[number])
                logger.info(
                    "\(old.label) \(collection): \(pass.flagged[number]) rejected (begun in the shards, compared in the finish)"
                )
            }
        }
        // What the passes settled goes among the shards' rejects and warnings in a plain
        // run's order: by step (the restored ones are in that order, and none is of these
        // passes' steps), stably.
        state.rejects = stablyByPhase(state.rejects, \.place.phase)
        state.warnings = stablyByPhase(state.warnings, \.place.phase)
        try state.spill.check()
        state.releaseSourcePages()
    }

    private static func stablyByPhase<T>(_ list: [T], _ phase: (T) -> Int) -> [T] {
        list.indices.sorted { (phase(list[$0]), $0) < (phase(list[$1]), $1) }.map { list[$0] }
    }
}
