extension KeyTable {
    /// The positions of `count` records in the order of their keys (`encode(i, &key)` writes
    /// record `i`'s key), ties in position order: the order `sortedPositions` of a table of
    /// the same keys gives, for any thread count, without a table of every key. Each key is
    /// encoded once for its 8-byte prefix and dropped; the prefixes are radix-sorted; then
    /// each run of equal prefixes encodes its keys again, into a buffer of that run alone,
    /// to be ordered by the rest of their bytes (`orderTied`). A table held about 30 bytes
    /// of key and 8 of offset a city through the radix sort (38 MB at 1M cities, at the
    /// sort's peak, which was the run's); this holds the slots and one run's keys per
    /// thread. The price is a second encoding of the keys in tied runs, in sorted order:
    /// in the 1M dump 91% of the names share their first 7 folded bytes with another.
    ///
    /// The second encoding takes its records in key order, anywhere in memory: `prefetch(i,
    /// .record)` is called 16 slots before `encode(i)` and `prefetch(i, .contents)` 8 slots
    /// before, so that it may ask the processor to bring what `encode` will read into its
    /// caches, first the record, then what the record points to (a hint, never a result).
    static func sortedPositions(
        count: Int, threads: Threads, prefetch: (Int, PrefetchStage) -> Void = { _, _ in },
        _ encode: (Int, inout ByteKey) -> Void
    ) -> [Int] {
        precondition(count <= Int(UInt32.max), "more keys than 32-bit positions hold")
        let unsorted = [Slot](unsafeUninitializedCapacity: count) { slots, initialized in
            _ = Parallel.chunks(count, threads: threads, minimumChunk: 8_192) { range in
                var key = ByteKey()
                for position in range {
                    key.removeAll()
                    encode(position, &key)
                    let prefix = key.bytes.withUnsafeBufferPointer { Self.prefix(of: $0) }
                    slots[position] = Slot(prefix: prefix, position: position)
                }
            }
            initialized = count
        }
        var slots = radixSorted(slots: consume unsorted)
        slots.withUnsafeMutableBufferPointer { slots in
            let ties = tiedRuns(slots)
            guard !ties.isEmpty else { return }
            let bounds = shares(of: ties, threads: threads)
            _ = threads.run(bounds.count - 1) { share in
                // One run's keys, reused from run to run.
                var bytes: [UInt8] = []
                var starts: [Int] = []
                var positions: [Int] = []
                var key = ByteKey()
                // Prefetches reach no further than this share's slots: the next share's
                // positions are being renumbered on another thread.
                let end = ties[bounds[share + 1] - 1].upperBound
                for run in ties[bounds[share]..<bounds[share + 1]] {
                    let tied = UnsafeMutableBufferPointer(rebasing: slots[run])
                    bytes.removeAll(keepingCapacity: true)
                    starts.removeAll(keepingCapacity: true)
                    starts.append(0)
                    positions.removeAll(keepingCapacity: true)
                    // A tied run is in position order, so numbering its slots 0, 1, ... in
                    // place of their positions keeps the order of ties.
                    for local in tied.indices {
                        let ahead = run.lowerBound + local + prefetchDistance
                        if ahead < end { prefetch(slots[ahead].position, .contents) }
                        if ahead + prefetchDistance < end {
                            prefetch(slots[ahead + prefetchDistance].position, .record)
                        }
                        key.removeAll()
                        encode(tied[local].position, &key)
                        bytes += key.bytes
                        starts.append(bytes.count)
                        positions.append(tied[local].position)
                        tied[local].position = local
                    }
                    bytes.withUnsafeBufferPointer { bytes in
                        starts.withUnsafeBufferPointer { starts in orderTied(tied, depth: 8, bytes, starts) }
                    }
                    for index in tied.indices { tied[index].position = positions[tied[index].position] }
                }
            }
        }
        return slots.map(\.position)
    }

    /// How many slots ahead of the key being encoded `prefetch` is asked for the contents
    /// (twice as many for the record): far enough for a fetch from memory to arrive, near
    /// enough to stay in the caches. Without the record's own fetch, loading the address of
    /// its values stalled: 4.5% of the 1M reference job's samples (`perf annotate`).
    static let prefetchDistance = 8

    /// What `prefetch` asks for: a record itself, or what it points to (its values).
    enum PrefetchStage {
        case record, contents
    }
}
