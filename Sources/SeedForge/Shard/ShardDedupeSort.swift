import Foundation

/// A sort directly after a dedupe begun in the shards (`ShardDedupe`), begun in the shards
/// too: every shipped pipeline dedupes and then sorts the same collection. Each shard sorts
/// its survivors and gives each one its place in that order (`Segment.ranked`); the
/// survivors stay in input order in the partial, as the finish's dedupe needs them. The
/// finish settles the dedupe as before, then merges the shards' sorted orders (k-way, by
/// the sort key) instead of sorting every record again, skipping the survivors that lost
/// to a survivor of another shard.
///
/// Why this is a plain run's order: a plain run sorts the dedupe's winners, which stay in
/// input order, and a sort is stable: equal keys keep input order. The finish keeps the
/// same winners in the same input order (`ShardDedupe.finish`), so it breaks ties between
/// the runs by each survivor's position in input order; within a run, the shard's stable
/// sort kept its survivors' input order, which is the same order. A `keep: last` or
/// `highest` winner keeps its own place, not its group's first, in both.
enum ShardDedupeSort {
    /// The sort directly after the dedupe the shards begin, on the same collection.
    static func following(_ pipeline: Pipeline, split: Int) -> Sort? {
        guard let dedupe = ShardDedupe.leading(pipeline, split: split), split + 1 < pipeline.steps.count,
            case .step(let step, _, _) = pipeline.steps[split + 1], let sort = step as? Sort,
            sort.collection == dedupe.collection
        else { return nil }
        return sort
    }

    /// Gives each survivor in `segments` (a shard's segments of the sorted collection, its
    /// survivors `records` in the same order) its place in the shard's sorted order.
    static func rank(
        _ segments: inout ArraySlice<Partial.Segment>, records: [Record], sort: Sort, shard: Int, threads: Threads
    ) throws {
        guard records.count <= Int(UInt32.max) else {
            throw ShardError("a shard holds more than 2^32 records of \(sort.collection): run more shards")
        }
        // Ties keep input order, as a plain run's sort keeps it.
        let order = sort.sortedPositions(records, threads: threads)
        var ranks = [UInt32](repeating: 0, count: records.count)
        for (rank, position) in order.enumerated() { ranks[Int(position)] = UInt32(rank) }
        var start = 0
        for index in segments.indices where segments[index].losers == nil {
            let count = segments[index].count
            guard start + count <= ranks.count else { break }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(4 * count)
            for rank in ranks[start..<start + count] { withUnsafeBytes(of: rank.littleEndian) { bytes += $0 } }
            segments[index].ranked = (shard, SegmentBytes(bytes))
            start += count
        }
        guard start == ranks.count else {
            throw InternalFailure("a shard's survivors are not those of its segments")
        }
    }

    /// Each survivor's shard and place in that shard's sorted order, in the order of the
    /// survivors' segments; nil when a segment has none (a partial whose shards did not rank).
    static func ranks(_ partial: Partial, of collection: CollectionID) throws -> (shards: [Int], ranks: [Int])? {
        var shards: [Int] = []
        var ranks: [Int] = []
        for segment in partial.segments where segment.collection == collection && segment.losers == nil {
            guard let (shard, bytes) = segment.ranked else { return nil }
            guard bytes.count == 4 * segment.count else {
                throw ShardError(
                    "a partial holds survivors of the shards' dedupe with their places in a sort cut short")
            }
            shards += repeatElement(shard, count: segment.count)
            try bytes.withBuffer { buffer in
                let base = UnsafeRawPointer(buffer.baseAddress!)
                for record in 0..<segment.count {
                    ranks.append(
                        Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 4 * record, as: UInt32.self))))
                }
            }
        }
        return (shards, ranks)
    }

    /// Runs `sort` (the step after the dedupe the shards began) on `state`, whose records
    /// `ShardDedupe.finish` left: the survivors but those in `lost`, in input order. Returns
    /// false, doing nothing, when the survivors carry no places in a sorted order or the
    /// collection spilled (the sort then runs as in a plain run).
    static func finish(_ partial: Partial, sort: Sort, lost: [Bool], state: RunState) throws -> Bool {
        let collection = sort.collection
        guard !state.store(collection).isSpilled, let (shards, ranks) = try ranks(partial, of: collection),
            ranks.count == lost.count
        else { return false }
        // Each shard's survivors by their place in its sorted order, as positions among all
        // survivors (input order).
        var runOf: [Int: Int] = [:]
        for shard in Set(shards).sorted() { runOf[shard] = runOf.count }
        var sizes = [Int](repeating: 0, count: runOf.count)
        for shard in shards { sizes[runOf[shard]!] += 1 }
        var runs = sizes.map { [Int](repeating: -1, count: $0) }
        for (position, (shard, rank)) in zip(shards, ranks).enumerated() {
            let run = runOf[shard]!
            guard rank < runs[run].count, runs[run][rank] < 0 else {
                throw ShardError("a partial's survivors of the shards' dedupe do not hold each place in a sort once")
            }
            runs[run][rank] = position
        }
        // A kept survivor's index among the records the dedupe kept.
        var kept = [Int](repeating: -1, count: lost.count)
        var count = 0
        for position in lost.indices where !lost[position] {
            kept[position] = count
            count += 1
        }
        var records = state.store(collection).take()
        guard records.count == count else {
            throw InternalFailure("the records after the shards' dedupe are not its survivors")
        }
        // The kept survivors run by run, each in its shard's sorted order, as positions
        // among all survivors: the keys are made in that order, so that the merge reads
        // each run's keys one after another (made in input order and looked up, the merge
        // was 18% of a 1M finish's CPU, most of it waiting for memory).
        var sequence: [Int] = []
        sequence.reserveCapacity(records.count)
        var ranges: [Range<Int>] = []
        for run in runs {
            let first = sequence.count
            for position in run where !lost[position] { sequence.append(position) }
            ranges.append(first..<sequence.count)
        }
        let table = KeyTable.build(count: sequence.count, threads: state.threads) { index, key in
            sort.appendKey(of: records[kept[sequence[index]]], to: &key)
            return true
        }
        var order: [Int] = []
        order.reserveCapacity(records.count)
        table.bytes.withUnsafeBufferPointer { buffer in
            // The least key first, then the earlier in input order.
            func less(_ a: Int, _ b: Int) -> Bool {
                let compared = table.compare(a, b, buffer)
                return compared != 0 ? compared < 0 : sequence[a] < sequence[b]
            }
            RangeMerge.forEach(ranges, less: less) { order.append(kept[sequence[$0]]) }
        }
        if let first = records.first {
            Reorder.permute(&records, by: order, filler: Record(values: [], origin: first.origin))
        }
        state.setRecords(collection, records)
        // As the plain run's sort does (`Sort.run`): its key table and positions freed.
        state.spill.returnFreedMemory()
        return true
    }
}
