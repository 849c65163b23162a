import Foundation

/// `aggregate: sort`: orders a collection by one or more keys. Text sorts by the documented
/// collation (see `Collation`) unless `collation: exact`; numbers numerically; timestamps
/// (`as: timestamp`) by instant; nulls last in either direction. Ties keep input order,
/// so the result is the same on every run. Keys are encoded once per record as a
/// `ByteKey` into one `KeyTable`, so each comparison is an integer compare or a `memcmp`.
public struct Sort: Step {
    public static let spec = KindSpec(
        stage: .aggregate, name: "sort",
        summary:
            "Order records by keys: text by the folded collation, numbers numerically, timestamps by instant; nulls last; stable.",
        keys: [
            CommonKeys.collection,
            KeySpec(
                "by", required: true,
                "a list of keys: a field name, or {field: F, order: asc|desc, collation: folded|exact, as: value|timestamp}"
            ),
        ],
        details: #"""
            Text sorts by the [collation](#collation), numbers numerically, timestamps (`as:
            timestamp`) by instant across time zones; nulls sort last in both directions; ties keep
            input order.
            """#,
        example: """
            - aggregate: sort
              collection: reviews
              by:
                - shopID
                - {field: createdAt, order: desc, as: timestamp}
                - id
            """)

    struct Key: Equatable, Sendable {
        let field: FieldID
        let descending: Bool
        let collation: TextOrder
        let timestamp: Bool
    }

    public let collection: CollectionID
    let keys: [Key]
    /// Fields a key reads: up to the last key field's.
    let fieldsRead: Int

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        let byNode = try config.require("by")
        let entries = try Self.entries(byNode)
        var keys: [Key] = []
        for entry in entries {
            if case .mapping = entry.node {
                let map = try entry.mapping("a sort key")
                if let error = map.unknownKeys(allowed: ["field", "order", "collation", "as"]).first { throw error }
                let field = try plan.field(map, key: "field", in: collection)
                let order = try map.string("order") ?? "asc"
                guard order == "asc" || order == "desc" else {
                    throw map["order"]!.error("'order' must be asc or desc, found '\(order)'")
                }
                let collation = try map.choice("collation", TextOrder.self, choices: TextOrder.allCases) ?? .folded
                let kind = try map.string("as") ?? "value"
                guard kind == "value" || kind == "timestamp" else {
                    throw map["as"]!.error("'as' must be value or timestamp, found '\(kind)'")
                }
                keys.append(
                    Key(field: field, descending: order == "desc", collation: collation, timestamp: kind == "timestamp")
                )
            } else {
                let field = try plan.field(entry.string("a sort key"), in: collection, at: entry)
                keys.append(Key(field: field, descending: false, collation: .folded, timestamp: false))
            }
        }
        self.keys = keys
        fieldsRead = keys.reduce(0) { max($0, $1.field.index + 1) }
        plan.sortedBy[collection] = (
            keys[0].field, keys[0].collation == .exact && !keys[0].timestamp, keys[0].descending
        )
    }

    static func entries(_ node: ConfigNode) throws -> [ConfigNode] {
        guard case .sequence = node.node else { return [node] }
        let list = try node.list("'by'")
        if list.isEmpty { throw node.error("'by' must name at least one sort key") }
        return list
    }

    /// Writes the record's sort key: bytes whose order is the records' order.
    func appendKey(of record: Record, to key: inout ByteKey) {
        for part in keys {
            // ASCII text, read in place: the same bytes as its `Value`'s.
            if !part.timestamp,
                key.appendASCIIText(of: record, part.field, text: part.collation, descending: part.descending)
            {
                continue
            }
            Self.append(record[part.field], part, to: &key)
        }
    }

    /// Writes the sort key of the record whose spilled bytes are `record` (as `RecordCodec`
    /// wrote them): the bytes `appendKey(of:to:)` writes for the record decoded, read in
    /// place. ASCII text is copied from the bytes as from a row; any other value is made
    /// from its bytes, the value the decoded record holds, and appended the same way.
    func appendKey(encoded record: UnsafeBufferPointer<UInt8>, to key: inout ByteKey) {
        RecordCodec.withValueOffsets(of: record, count: fieldsRead) { offsets in
            for part in keys {
                let offset = offsets[part.field.index]
                guard offset >= 0 else {
                    Self.append(.null, part, to: &key)
                    continue
                }
                var reader = RecordCodec.Reader(record, at: offset + 1)
                if !part.timestamp, record[offset] == RecordCodec.Tag.string.rawValue {
                    let length = Int(reader.varint())
                    let text = UnsafeBufferPointer(rebasing: record[reader.position..<(reader.position + length)])
                    if key.appendASCIIText(text, text: part.collation, descending: part.descending) { continue }
                }
                reader.position = offset
                Self.append(reader.value(), part, to: &key)
            }
        }
    }

    /// Appends one key part's component for `value` (a timestamp's instant, or the value).
    private static func append(_ value: Value, _ part: Key, to key: inout ByteKey) {
        if part.timestamp, case .string(let text) = value, let instant = Timestamp.parse(text) {
            key.append(.double(instant), text: .exact, descending: part.descending)
        } else {
            key.append(value, text: part.collation, descending: part.descending)
        }
    }

    public func run(_ state: RunState) throws {
        let store = state.store(collection)
        // Ingest spilled the records as runs of this sort's keys (`SortedAtSpill`): they are
        // the sorted collection already.
        if try store.claimRuns(sortedBy: keys) { return try state.spill.check() }
        if store.isSpilled {
            // Past the memory limit: sorted runs on disk, merged (see `SortedRuns`).
            // Each key is made from the record's bytes, the record never decoded.
            return try SortedRuns.sort(store, space: state.spill, threads: state.threads) { record, key in
                appendKey(encoded: record, to: &key)
            }
        }
        // Taken out of the store, so that the records are moved into their order, not
        // copied (see `Reorder`).
        var records = store.take()
        // What dedupe freed and glibc kept resident goes before the keys are made: at 240k
        // cities 1.5 MiB off the sort's peak, the run's (the trim does not show in a profile).
        state.spill.returnFreedMemory()
        // Ties keep input order, so the result never depends on the sort algorithm.
        let order = sortedPositions(records, threads: state.threads)
        if let first = records.first {
            Reorder.permute(&records, by: order, filler: Record(values: [], origin: first.origin))
        }
        state.setRecords(collection, records)
        // The key table, the radix sort's buffers and the positions are freed now, but glibc
        // keeps such chunks in its heap: at 240k cities about 18 MiB of them stayed resident
        // through the outputs, the run's peak. One trim here took 0.3 to 0.7 ms (after the
        // other steps, whose frees are many small strings, 25 to 33 ms: not done there).
        state.spill.returnFreedMemory()
    }

    /// The positions of the records in sorted order (32-bit: half the memory of `Int`s while
    /// the records are moved into their order, the sort's second highest point).
    func sortedPositions(_ records: [Record], threads: Threads) -> [UInt32] {
        if let order = KeyOrder.positions(
            count: records.count, threads: threads,
            { index, key in
                appendKey(of: records[index], to: &key)
            })
        {
            return order
        }
        // Keys past 4 GiB (beyond 32-bit offsets): a table with `Int` offsets.
        let table = KeyTable.build(count: records.count, threads: threads) { index, key in
            appendKey(of: records[index], to: &key)
            return true
        }
        return (consume table).sortedPositions(threads: threads).map { UInt32(truncatingIfNeeded: $0) }
    }
}

/// How a sort compares text: by the folded collation key (then exact text), or exactly.
public enum TextOrder: String, CaseIterable, Sendable {
    case folded, exact
}
