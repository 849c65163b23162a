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

    /// What a shard began of a pass with a rule that compares records, on one collection:
    /// the other rules' unsettled findings by the record's position, and each record's key
    /// hash for every `unique` rule of the pass (`keyBytes` bytes a record, in the
    /// collection's order: for each such rule in step order, a byte that says whether the
    /// record has a key, then the hash's 8 bytes, little-endian), which its segments carry
    /// (`Partial.Segment.keys`) so that the finish makes keys only where hashes meet.
    struct Begun {
        var found: [Int: Found] = [:]
        var keys: [UInt8] = []
        let keyBytes: Int

        /// Appends the key hashes of the record at `position` to `bytes`.
        func appendKeys(at position: Int, to bytes: inout [UInt8]) {
            bytes += keys[position * keyBytes..<(position + 1) * keyBytes]
        }
    }

    /// The `unique` rules of a pass's steps, by step number, in step order.
    static func uniqueRules(_ steps: [ValidateStep]) throws -> [(number: Int, rule: UniqueRule)] {
        try steps.indices.filter { type(of: steps[$0].rule).comparesRecords }.map { number in
            guard let rule = steps[number].rule as? UniqueRule else {
                throw InternalFailure("\(steps[number].label) compares records and is not a unique rule")
            }
            return (number, rule)
        }
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
    ) throws -> [CollectionID: Begun] {
        let steps = validateSteps(pipeline, block)
        var unsettled: [CollectionID: Begun] = [:]
        for (collection, passSteps) in ValidationPass.passes(of: steps) {
            var pass = ValidationPass(passSteps, collection: collection, state: state)
            state.phase = 1 + block.lowerBound + steps.firstIndex { $0.collection == collection }!
            state.spill.step = pass.label
            let total = state.count(collection)
            let store = state.store(collection)
            if pass.comparesRecords {
                let unique = try uniqueRules(passSteps)
                var begun = Begun(keyBytes: 9 * unique.count)
                begun.keys.reserveCapacity(total * begun.keyBytes)
                var offset = 0
                try store.forEachBatch { batch in
                    let records = Array(batch)
                    for number in passSteps.indices where !type(of: passSteps[number].rule).comparesRecords {
                        for (position, findings) in pass.check(records, step: number, state: state) {
                            begun.found[offset + position, default: Found()].steps += repeatElement(
                                number, count: findings.count)
                            begun.found[offset + position]!.findings += findings
                        }
                    }
                    let hashes = unique.map { $0.rule.keyHashes(of: records, threads: state.threads) }
                    for position in records.indices {
                        for (hash, present) in hashes {
                            begun.keys.append(present[position] ? 1 : 0)
                            withUnsafeBytes(of: hash[position].littleEndian) { begun.keys += $0 }
                        }
                    }
                    offset += records.count
                }
                unsettled[collection] = begun
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
            let unique = try uniqueRules(passSteps)
            guard !unique.isEmpty else { continue }
            let comparing = unique.map(\.number)
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
            // The records' key hashes the shards made, per unique rule.
            var hashes = [[UInt64]](repeating: [], count: unique.count)
            var present = [[Bool]](repeating: [], count: unique.count)
            for segment in partial.segments where segment.collection == collection {
                guard segment.run < 0, segment.losers == nil else {
                    throw InternalFailure("a partial holds sorted runs or a dedupe's losers of \(collection)")
                }
                let keyBytes = 9 * unique.count
                guard let keys = segment.keys, keys.count == keyBytes * segment.count else {
                    throw ShardError("a partial holds records of \(pass.label) without their keys' hashes")
                }
                try keys.withBuffer { buffer in
                    let base = UnsafeRawPointer(buffer.baseAddress!)
                    for record in 0..<segment.count {
                        for rule in unique.indices {
                            let at = record * keyBytes + 9 * rule
                            present[rule].append(buffer[at] != 0)
                            hashes[rule].append(
                                UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at + 1, as: UInt64.self)))
                        }
                    }
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
            let schema = pass.schema
            for (index, (number, rule)) in unique.enumerated() {
                let checked = pass.check(records, step: number, state: state) { step in
                    rule.checkAll(
                        records, hashes: hashes[index], present: present[index], schema: schema, code: step.code,
                        severity: step.severity)
                }
                for (position, findings) in checked {
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
