/// The records an output writes, in their final order: an array, or a collection spilled
/// to disk under the memory limit, read back a batch at a time, so that an output never
/// holds such a collection whole. Formats go through them in order, once.
public struct OutputRecords {
    /// How many records the output writes (known before the first is written: a JSON
    /// array's head and a text listing's title depend on it).
    public let count: Int
    private let batches: ((ArraySlice<Record>) throws -> Void) throws -> Void

    /// Records in memory: one batch.
    public init(_ records: [Record]) {
        count = records.count
        batches = { body in try body(records[...]) }
    }

    init(count: Int, batches: @escaping ((ArraySlice<Record>) throws -> Void) throws -> Void) {
        self.count = count
        self.batches = batches
    }

    /// Calls `body` with consecutive runs of the records, in order.
    public func forEachBatch(_ body: (ArraySlice<Record>) throws -> Void) throws {
        try withoutActuallyEscaping(body) { body in try batches(body) }
    }

    /// Calls `body` with each record and its position, in order. `width`: how many of
    /// each record's first fields `body` reads, whose values are brought into the caches a
    /// few records ahead (`Record.prefetchValues`).
    ///
    /// Each record is lent to `body` in place, not copied: in a profile of the full cities
    /// pipeline at 240k records, the copy's retain of each sorted record (its values
    /// anywhere in the heap) was 5.8% of the run's CPU samples, in the SQLite and
    /// prefix-index outputs.
    public func forEach(width: Int = 0, _ body: (Int, Record) throws -> Void) throws {
        var position = 0
        try forEachBatch { batch in
            try batch.withUnsafeBufferPointer { records in
                for index in records.indices {
                    if width > 0 {
                        Record.prefetchValues(of: records, at: index + Record.prefetchDistance, width: width)
                    }
                    try body(position, records[index])
                    position += 1
                }
            }
        }
    }
}
