import Foundation
import HeapModule

/// Sorts begun in the shards. When the steps left to the finish start with `sort` steps
/// (on different collections), each shard sorts its own records of those collections and
/// writes them to its partial as one sorted run; merging partials keeps each shard's run
/// as it is, and the finish merges the runs (k-way, by the sort key) instead of sorting
/// all records again. A plain run's sort is stable: of records with equal keys, the one
/// earlier in the collection comes first. In a shard's run they keep their order among
/// its records; between shards, the earlier file among the records (`recordOrder`) wins,
/// since a file's records, or its part's, are all in one shard.
enum ShardSort {
    /// The sort steps at the start of the steps the finish runs (from `split` on), each on
    /// a collection no earlier one sorts.
    static func leading(_ pipeline: Pipeline, split: Int) -> [Sort] {
        var sorts: [Sort] = []
        // After a validate block the shards began, the finish settles its records first.
        guard ShardUnique.block(pipeline, split: split) == nil else { return sorts }
        var index = split
        while index < pipeline.steps.count, case .step(let step, _, _) = pipeline.steps[index],
            let sort = step as? Sort, !sorts.contains(where: { $0.collection == sort.collection })
        {
            sorts.append(sort)
            index += 1
        }
        return sorts
    }

    /// Replaces the records of each sorted collection in a shard's partial by the shard's
    /// sorted run. `texts` are the partial's files, by number.
    static func sortRuns(
        _ partial: inout Partial, sorts: [Sort], texts: [SourceText], schemas: [CollectionID: Schema], shard: Int,
        threads: Threads
    ) throws {
        for sort in sorts {
            let collection = sort.collection
            let width = schemas[collection]?.fields.count ?? 0
            // The shard's records in the order of a plain run (the partial's order).
            var records: [Record] = []
            var files: [Int] = []
            for segment in partial.segments where segment.collection == collection {
                let decoded = try RecordCodec(sources: [texts[segment.file]]).decodeAll(
                    segment.bytes, count: segment.count, width: width)
                records += decoded
                files += repeatElement(segment.file, count: decoded.count)
            }
            let table = KeyTable.build(count: records.count, threads: threads) { index, key in
                sort.appendKey(of: records[index], to: &key)
                return true
            }
            // Ties keep the partial's order, as a plain run's sort keeps input order.
            let order = (consume table).sortedPositions(threads: threads)
            var run: [Partial.Segment] = []
            var start = 0
            while start < order.count {
                var end = start
                while end < order.count, end - start < 65_536, files[order[end]] == files[order[start]] { end += 1 }
                var bytes: [UInt8] = []
                let codec = RecordCodec(sources: [texts[files[order[start]]]])
                for position in order[start..<end] { codec.encode(records[position], into: &bytes) }
                run.append(
                    Partial.Segment(
                        collection: collection, file: files[order[start]], sequence: run.count + 1,
                        count: end - start, bytes: SegmentBytes(bytes), run: shard))
                start = end
            }
            partial.segments.removeAll { $0.collection == collection }
            partial.segments += run
        }
        partial = partial.sorted()
    }

    /// The head of one shard's run in the k-way merge.
    private struct Head: Comparable {
        let key: ByteKey
        /// The place of the record's file among the records (`Partial.recordOrder`).
        let file: Int
        let run: Int

        static func < (a: Head, b: Head) -> Bool {
            a.key != b.key ? a.key < b.key : (a.file, a.run) < (b.file, b.run)
        }
    }

    /// Puts the records of the sorted runs of `sort`'s collection in `partial` into `state`,
    /// merged in the sort's order. `texts` are the partial's files, by number.
    static func mergeRuns(_ partial: Partial, sort: Sort, texts: [SourceText], into state: RunState) throws {
        let order = partial.recordOrder()
        // Records take about four times their encoded size: when they fit in the memory
        // limit, their keys are made at once on every core, else run by run as they come.
        let encoded = partial.segments.lazy.filter { $0.collection == sort.collection && $0.run >= 0 }
            .reduce(0) { $0 + $1.bytes.count }
        if encoded * 4 < state.spill.limit {
            return try mergeInMemory(partial, sort: sort, texts: texts, order: order, into: state)
        }
        do {
            let collection = sort.collection
            let width = state.schemas[collection]?.fields.count ?? 0
            var runs: [[Partial.Segment]] = []
            for segment in partial.segments where segment.collection == collection && segment.run >= 0 {
                if runs.isEmpty || runs[runs.count - 1][0].run != segment.run { runs.append([]) }
                runs[runs.count - 1].append(segment)
            }
            // Each run's current segment, decoded, and where it stands.
            var current: [(records: [Record], next: Int, segment: Int)] = runs.map { _ in ([], 0, -1) }
            var heap = Heap<Head>()
            func advance(_ run: Int) throws -> Record? {
                while current[run].next >= current[run].records.count {
                    let segment = current[run].segment + 1
                    guard segment < runs[run].count else { return nil }
                    let bytes = runs[run][segment]
                    current[run] = (
                        try RecordCodec(sources: [texts[bytes.file]]).decodeAll(
                            bytes.bytes, count: bytes.count, width: width),
                        0, segment
                    )
                }
                defer { current[run].next += 1 }
                return current[run].records[current[run].next]
            }
            var heads: [Record?] = try runs.indices.map { try advance($0) }
            func push(_ run: Int) {
                guard let record = heads[run] else { return }
                var key = ByteKey()
                sort.appendKey(of: record, to: &key)
                heap.insert(Head(key: key, file: order[runs[run][current[run].segment].file], run: run))
            }
            for run in runs.indices { push(run) }
            let store = state.store(collection)
            while let head = heap.popMin() {
                store.append(heads[head.run]!)
                heads[head.run] = try advance(head.run)
                push(head.run)
            }
        }
    }

    /// `mergeRuns` with every record decoded and every key in one table, made on every
    /// core; the runs are ranges of it, merged by comparing table entries.
    private static func mergeInMemory(
        _ partial: Partial, sort: Sort, texts: [SourceText], order: [Int], into state: RunState
    ) throws {
        let collection = sort.collection
        let width = state.schemas[collection]?.fields.count ?? 0
        var records: [Record] = []
        var files: [Int] = []
        var ranges: [(run: Int, range: Range<Int>)] = []
        for segment in partial.segments where segment.collection == collection && segment.run >= 0 {
            if ranges.isEmpty || ranges[ranges.count - 1].run != segment.run {
                ranges.append((segment.run, records.count..<records.count))
            }
            let decoded = try RecordCodec(sources: [texts[segment.file]]).decodeAll(
                segment.bytes, count: segment.count, width: width, threads: state.threads)
            records += decoded
            files += repeatElement(order[segment.file], count: decoded.count)
            ranges[ranges.count - 1].range = ranges[ranges.count - 1].range.lowerBound..<records.count
        }
        let table = KeyTable.build(count: records.count, threads: state.threads) { index, key in
            sort.appendKey(of: records[index], to: &key)
            return true
        }
        let store = state.store(collection)
        table.bytes.withUnsafeBufferPointer { buffer in
            // The runs merged: least key first, then earlier file.
            func less(_ a: Int, _ b: Int) -> Bool {
                let compared = table.compare(a, b, buffer)
                return compared != 0 ? compared < 0 : files[a] < files[b]
            }
            RangeMerge.forEach(ranges.map(\.range), less: less) { store.append(records[$0]) }
        }
    }
}
