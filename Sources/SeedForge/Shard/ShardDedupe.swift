import Foundation

/// Dedupes begun in the shards. When the steps left to the finish start with a `dedupe`,
/// each shard deduplicates its own records of that collection: its partial holds the
/// survivors (in a plain run's order) and, apart, the local losers, each with its place in
/// its file and its local winner's. The finish deduplicates the survivors of all shards
/// and logs every loser with its final winner, in a plain run's order.
///
/// Why a local loser is a global loser: without `fill`, `within` or `across`, a group's
/// winner is the best record of the group in one total order (`first`: the earliest;
/// `last`: the latest; `lowest`/`highest`: the best `keep-by` value, a null never better
/// than a value, ties to the earliest), since a later record replaces the winner exactly
/// when it is better in that order. A record beaten in its shard is beaten in the whole
/// collection; the global winner is the best of the shards' winners, which the finish's
/// dedupe of the survivors (in input order) finds. A local winner that loses there takes
/// its local losers with it: they are logged with the global winner.
///
/// Where it fails, so these stay in the finish: `within` and `across` merge greedily (a
/// record merges into the first kept record near enough or of another `across` value, so
/// which records are kept depends on records of other shards), and `fill` gives the
/// winner fields of the records it replaces in input order, which a local winner that
/// loses globally would have taken instead of the global winner.
enum ShardDedupe {
    /// The dedupe the finish starts with (the step numbered `split`), when the shards can
    /// begin it.
    static func leading(_ pipeline: Pipeline, split: Int) -> Dedupe? {
        guard let dedupe = ShardPlan.leadingStep(pipeline, split: split, as: Dedupe.self), dedupe.beginsInShards
        else { return nil }
        return dedupe
    }

    /// A shard's dedupe of its own records: which are its local losers, and each one's
    /// place and its local winner's, gathered while the shard writes the collection's
    /// records to its partial (`ShardRun.make`), which leaves the losers out of the
    /// collection's segments and adds them as segments of their own (`Segment.losers`).
    struct LocalLosers {
        /// Loser position → winner position, among the shard's records in input order.
        let winnerOf: [Int: Int]
        private let winners: Set<Int>
        private var winnerPlace: [Int: Partial.Place] = [:]
        private var removed: [(position: Int, place: Partial.Place, record: Record)] = []

        /// Each record's key hash and whether it has a key: the survivors' go to the partial.
        private let hashes: [UInt64]
        private let present: [Bool]

        init(_ dedupe: Dedupe, records: [Record], threads: Threads) {
            (hashes, present) = dedupe.keyHashes(of: records, threads: threads)
            winnerOf = dedupe.winners(in: records, hashes: hashes, present: present)
            winners = Set(winnerOf.values)
        }

        /// Appends the key hash of the record at `position` as `Segment.keys` holds it.
        func appendKey(at position: Int, to bytes: inout [UInt8]) {
            bytes.append(present[position] ? 1 : 0)
            withUnsafeBytes(of: (present[position] ? hashes[position] : 0).littleEndian) { bytes += $0 }
        }

        /// Notes the record at `position` (in input order) and its place; true when it is a
        /// local loser, kept apart.
        mutating func take(_ record: Record, at position: Int, place: Partial.Place) -> Bool {
            if winners.contains(position) { winnerPlace[position] = place }
            guard winnerOf[position] != nil else { return false }
            removed.append((position, place, record))
            return true
        }

        /// The losers as segments of at most 65,536 records of one file each, in input order.
        func segments(
            of collection: CollectionID, source: (Int) -> SourceText, sequence: inout Int
        ) -> [Partial.Segment] {
            var segments: [Partial.Segment] = []
            var start = 0
            while start < removed.count {
                let file = removed[start].place.file
                var end = start
                while end < removed.count, end - start < 65_536, removed[end].place.file == file { end += 1 }
                var bytes: [UInt8] = []
                let codec = RecordCodec(sources: [source(file)])
                for loser in removed[start..<end] { codec.encode(loser.record, into: &bytes) }
                sequence += 1
                segments.append(
                    Partial.Segment(
                        collection: collection, file: file, sequence: sequence, count: end - start,
                        bytes: SegmentBytes(bytes),
                        losers: removed[start..<end].map { loser in
                            Partial.Loser(index: loser.place.index, winner: winnerPlace[winnerOf[loser.position]!]!)
                        }))
                start = end
            }
            return segments
        }
    }

    /// Runs the dedupe the shards began (`dedupe`, the step numbered `step`) on `state`,
    /// into which `ShardRun.restore` put the shards' survivors: the survivors of all shards
    /// are deduplicated, and every loser, local or not, is logged with its final winner in
    /// a plain run's order. Records the statistics a plain run's step leaves. Returns which
    /// survivors, in the order of their segments, lost to another shard's.
    @discardableResult
    static func finish(
        _ partial: Partial, dedupe: Dedupe, step: Int, pipeline: Pipeline, texts: [SourceText], state: RunState
    ) throws -> [Bool] {
        guard case .step(_, let stage, _) = pipeline.steps[step] else { return [] }
        let clock = ContinuousClock.now
        let label = pipeline.steps[step].label
        state.phase = 1 + step
        state.changedByStep = nil
        state.spill.step = label
        let collection = dedupe.collection
        let width = state.schemas[collection]?.fields.count ?? 0
        let order = partial.recordOrder()
        state.progress?.begin(
            stage: "\(label) \(collection)", unit: "records", total: state.count(collection), totalBytes: nil)
        var records = state.store(collection).take()
        // The survivors are in input order: the sequential choice finds each group's best,
        // from the key hashes the shards made (keys are made again only where hashes meet).
        let (hashes, present) = try keyHashes(partial, of: collection, count: records.count)
        let winnerOf = dedupe.winners(in: records, hashes: hashes, present: present)
        func final(_ survivor: Int) -> Int { winnerOf[survivor] ?? survivor }
        var lost = [Bool](repeating: false, count: records.count)
        for loser in winnerOf.keys { lost[loser] = true }
        // By file, ascending: the places the local losers took (a survivor's place is the
        // next one not taken) and those of their local winners, to be found among the
        // survivors. Walked with a cursor per file, not looked up per record: at 5M cities a
        // table of every survivor's place made this finish take 1.4x the CPU of the plain one.
        var taken: [Int: [Int]] = [:]
        var wanted: [Int: [Int]] = [:]
        for segment in partial.segments where segment.collection == collection {
            for loser in segment.losers ?? [] {
                taken[segment.file, default: []].append(loser.index)
                wanted[loser.winner.file, default: []].append(loser.winner.index)
            }
        }
        for file in wanted.keys { wanted[file] = Array(Set(wanted[file]!)).sorted() }
        var survivorAt: [Partial.Place: Int] = [:]
        // Every loser with its place in a plain run's order and its final winner.
        var removed: [(place: (Int, Int), record: Record, winner: Int)] = []
        removed.reserveCapacity(winnerOf.count)
        var cursors: [Int: (index: Int, taken: Int, wanted: Int)] = [:]
        var position = 0
        for segment in partial.segments where segment.collection == collection && segment.losers == nil {
            let file = segment.file
            let (takenHere, wantedHere) = (taken[file] ?? [], wanted[file] ?? [])
            var cursor = cursors[file] ?? (0, 0, 0)
            guard position + segment.count <= records.count else { break }
            for _ in 0..<segment.count {
                while cursor.taken < takenHere.count, takenHere[cursor.taken] == cursor.index {
                    cursor.taken += 1
                    cursor.index += 1
                }
                if cursor.wanted < wantedHere.count, wantedHere[cursor.wanted] == cursor.index {
                    survivorAt[Partial.Place(file: file, index: cursor.index)] = position
                    cursor.wanted += 1
                }
                if lost[position] {
                    removed.append(((order[file], cursor.index), records[position], winnerOf[position]!))
                }
                cursor.index += 1
                position += 1
            }
            cursors[file] = cursor
        }
        guard position == records.count else {
            throw InternalFailure("the survivors of the shards' dedupe are not those of their partials")
        }
        let survivors = records.count
        var localLosers = 0
        for segment in partial.segments where segment.collection == collection {
            guard let losers = segment.losers else { continue }
            let decoded = try RecordCodec(sources: [texts[segment.file]]).decodeAll(
                segment.bytes, count: segment.count, width: width)
            for (loser, record) in zip(losers, decoded) {
                guard let winner = survivorAt[loser.winner] else {
                    throw InternalFailure("a shard's dedupe names a winner that its partial does not hold")
                }
                removed.append(((order[segment.file], loser.index), record, final(winner)))
            }
            localLosers += segment.count
        }
        removed.sort { $0.place < $1.place }
        for entry in removed {
            state.removeDuplicate(
                entry.record, in: collection, winner: records[entry.winner], key: dedupe.loggedKey(of: entry.record),
                step: "aggregate: dedupe")
        }
        Reorder.remove(&records) { lost[$0] }
        state.setRecords(collection, records)
        try state.spill.check()
        state.releaseSourcePages()
        state.stepStats.append(
            StepStat(
                label: label, stage: stage, collection: collection, recordsIn: survivors + localLosers,
                recordsOut: records.count, rejected: 0, duplicates: removed.count, warnings: 0,
                seconds: Runner.seconds(since: clock)))
        return lost
    }

    /// The survivors' key hashes from their segments (`Segment.keys`), in their order.
    static func keyHashes(
        _ partial: Partial, of collection: CollectionID, count: Int
    ) throws -> (hashes: [UInt64], present: [Bool]) {
        var hashes: [UInt64] = []
        var present: [Bool] = []
        hashes.reserveCapacity(count)
        present.reserveCapacity(count)
        for segment in partial.segments where segment.collection == collection && segment.losers == nil {
            guard let keys = segment.keys, keys.count == 9 * segment.count else {
                throw ShardError("a partial holds survivors of the shards' dedupe without their keys' hashes")
            }
            try keys.withBuffer { buffer in
                let base = UnsafeRawPointer(buffer.baseAddress!)
                for record in 0..<segment.count {
                    present.append(buffer[9 * record] != 0)
                    hashes.append(
                        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 9 * record + 1, as: UInt64.self)))
                }
            }
        }
        guard hashes.count == count else {
            throw InternalFailure("the survivors of the shards' dedupe are not those of their partials")
        }
        return (hashes, present)
    }

    /// Whether the finish deduplicates the survivors itself: it holds them whole, decoded
    /// (about four times their encoded size, as `ShardSort` reckons), so only when every
    /// record the partial holds fits in the half of the memory limit that stores keep in
    /// memory (`SpillSpace.enforce`): then restoring them spills none. Otherwise
    /// `restoreWhole` and the dedupe step as a plain run has it, spilling past the limit (a
    /// test under 6 MiB took the first path after the survivors had spilled, and held them
    /// whole again with a notice that the limit may have been exceeded).
    static func fits(_ partial: Partial, limit: Int) -> Bool {
        let encoded = partial.segments.reduce(0) { $0 + $1.bytes.count }
        return encoded * 4 < limit / 2
    }

    /// Puts the survivors and the local losers of `collection` into `store` together, in a
    /// plain run's order: each loser back at its index among its file's records.
    static func restoreWhole(
        _ partial: Partial, _ collection: CollectionID, texts: [SourceText], into store: RecordStore
    ) throws {
        let order = partial.recordOrder()
        var losers: [Int: [(index: Int, record: Record)]] = [:]
        var survivors: [Int: [Partial.Segment]] = [:]
        for segment in partial.segments where segment.collection == collection {
            guard let places = segment.losers else {
                survivors[segment.file, default: []].append(segment)
                continue
            }
            let decoded = try RecordCodec(sources: [texts[segment.file]]).decodeAll(
                segment.bytes, count: segment.count, width: store.width)
            losers[segment.file, default: []] += zip(places, decoded).map { ($0.index, $1) }
        }
        // Every file with records of the collection, survivors or not, in a plain run's order.
        for file in Set(losers.keys).union(survivors.keys).sorted(by: { order[$0] < order[$1] }) {
            let removed = losers[file] ?? []
            var next = 0
            var index = 0
            for segment in survivors[file] ?? [] {
                for record in try RecordCodec(sources: [texts[file]]).decodeAll(
                    segment.bytes, count: segment.count, width: store.width)
                {
                    while next < removed.count, removed[next].index == index {
                        store.append(removed[next].record)
                        next += 1
                        index += 1
                    }
                    store.append(record)
                    index += 1
                }
            }
            for loser in removed[next...] { store.append(loser.record) }
        }
    }
}
