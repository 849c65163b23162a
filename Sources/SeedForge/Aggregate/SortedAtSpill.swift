/// A sort's runs gathered from the records as ingest spills them ("sorted at spill"): when
/// the pipeline's first steps are record-by-record steps fused into ingest's spills, then
/// one dedupe, then this sort of the same collection (`IngestSpillPass`), each spilled
/// batch is written as entries of the sort's key carrying the record's bytes, instead of
/// as a batch in input order that the sort would read back, key, copy and write again as
/// runs (at 5M cities under 512 MiB, about 9% of the run's samples). Dedupe only removes
/// records (its losers are left out of the runs' merges by input position), and the runs'
/// entries carry their input positions, so the merge's order is the sort's, ties in input
/// order, as when the sort gathers the runs itself.
final class SortedAtSpill {
    /// The sort's keys: the runs are in this order (`Sort.run` checks them, not a flag).
    let keys: [Sort.Key]
    private let appendKey: (Record, inout ByteKey) -> Void
    let gathering: SortedRuns.Gathering

    init(_ sort: Sort, space: SpillSpace, threads: Threads) {
        keys = sort.keys
        appendKey = { sort.appendKey(of: $0, to: &$1) }
        gathering = SortedRuns.Gathering(space: space, threads: threads)
    }

    /// Adds a batch of records being spilled (the next in input order): each encoded as
    /// `RecordStore` spills it, the bytes carried by its entry, its key made from the record
    /// still in memory (the bytes `Sort.appendKey(encoded:to:)` makes from the encoding) on
    /// the thread that encodes it: made in a pass of their own, a piece at a time, the keys
    /// were most of the 2.8 s the spilling thread ran alone at 20M cities under 2 GiB.
    func add(_ batch: [Record], space: SpillSpace) throws {
        guard !batch.isEmpty else { return }
        let appendKey = appendKey
        let pieces = space.encodePieces(batch, starts: true) { range in
            var keys = KeyTable()
            keys.reserve(range.count)
            var key = ByteKey()
            for index in range {
                key.removeAll()
                appendKey(batch[index], &key)
                keys.append(key.bytes, present: true)
            }
            return keys
        }
        for piece in pieces {
            try piece.bytes.withUnsafeBufferPointer { bytes in
                try gathering.add(keys: piece.beside, carrying: bytes, starts: piece.starts)
            }
        }
    }
}
