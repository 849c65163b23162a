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

    /// Calls `body` with each record and its position, in order.
    public func forEach(_ body: (Int, Record) throws -> Void) throws {
        var position = 0
        try forEachBatch { batch in
            for record in batch {
                try body(position, record)
                position += 1
            }
        }
    }
}
