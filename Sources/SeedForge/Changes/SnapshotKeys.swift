/// Records of one snapshot by key: each key is the byte ranges of its values in the
/// snapshot's lines (JSON text, no copies; the writer is deterministic, so equal values are
/// equal bytes), in an open-addressing hash table. A slot holds 32 bits of the key's hash
/// beside the entry it points to, so a probe reads a stored key's ranges and bytes (two
/// reads far apart in memory) only when those bits agree: finding a record by the key of
/// a record of another snapshot costs one hash of the key's bytes and, nearly always, one
/// comparison of the key with the record that has it.
///
/// Keys are inserted one record at a time (`insert`), or every record of a collection at
/// once (`init(_:of:positions:)`); a key given twice is reported, not stored twice.
struct SnapshotKeys {
    /// The bytes the stored keys' ranges point into.
    let bytes: UnsafeBufferPointer<UInt8>
    /// Key fields per record.
    let width: Int
    /// The hash of one field's bytes (replaceable by tests that need keys to collide).
    let hashField: (UnsafeBufferPointer<UInt8>, Range<Int>) -> UInt64
    /// `width` ranges per entry, in the order entries were inserted.
    private var ranges: [Range<Int>] = []
    /// The record number of each entry.
    private var records: [Int32] = []
    /// Per slot: 0 when empty, else the key hash's upper 32 bits and the entry's number + 1.
    private var slots: [UInt64]
    private var mask: Int

    /// Entries held.
    var count: Int { records.count }

    static func fieldHash(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64 {
        KeyTable.hash(bytes, from: range.lowerBound, to: range.upperBound)
    }

    /// An empty table for keys of `width` fields in `bytes`, with room for `capacity` keys
    /// before it grows.
    init(
        bytes: UnsafeBufferPointer<UInt8>, width: Int, capacity: Int = 0,
        hashField: @escaping (UnsafeBufferPointer<UInt8>, Range<Int>) -> UInt64 = SnapshotKeys.fieldHash
    ) {
        self.bytes = bytes
        self.width = width
        self.hashField = hashField
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
        ranges.reserveCapacity(capacity * width)
        records.reserveCapacity(capacity)
    }

    /// Two records sharing a key: their numbers (0-based).
    struct Duplicate: Error {
        let first: Int
        let second: Int
    }

    struct Unreadable: Error {
        let record: Int
    }

    /// The keys at `positions` of every record line of `collection`; throws `Unreadable`
    /// for the first line whose key cannot be read, then `Duplicate` for the first record
    /// whose key an earlier one has. Only the lines' first values, up to the last key
    /// field, are read.
    init(_ collection: Snapshot.Collection, of snapshot: Snapshot, positions: [Int]) throws {
        self.init(bytes: snapshot.bytes, width: positions.count, capacity: collection.lines.count)
        // Every key read and hashed first, then placed: the table is larger than the caches,
        // and probes that follow one another in a short loop overlap their reads of slots,
        // where a probe between two key reads waited for its slot.
        var found = [Range<Int>](repeating: 0..<0, count: (positions.max() ?? 0) + 1)
        var hashes: [UInt64] = []
        hashes.reserveCapacity(collection.lines.count)
        for (number, line) in collection.lines.enumerated() {
            guard (try? snapshot.values(of: line, upTo: found.count - 1, into: &found)) == true else {
                throw Unreadable(record: number)
            }
            for position in positions { ranges.append(found[position]) }
            records.append(Int32(number))
            hashes.append(hash(positions.lazy.map { found[$0] }, in: bytes))
        }
        for (entry, hash) in hashes.enumerated() {
            switch probe(hash, ranges[(entry * width)..<((entry + 1) * width)], in: bytes) {
            case .found(let first): throw Duplicate(first: Int(records[first]), second: entry)
            case .empty(let slot): slots[slot] = (hash >> 32) << 32 | UInt64(entry + 1)
            }
        }
    }

    /// The key of `record` (`values[positions]`, ranges in `bytes`), unless a record with
    /// that key is already there: then nothing is stored and that record's number is returned.
    mutating func insert(_ record: Int, key values: [Range<Int>], at positions: [Int]) -> Int? {
        let hash = self.hash(positions.lazy.map { values[$0] }, in: bytes)
        var slot: Int
        switch probe(hash, positions.lazy.map { values[$0] }, in: bytes) {
        case .found(let entry): return Int(records[entry])
        case .empty(let empty): slot = empty
        }
        for position in positions { ranges.append(values[position]) }
        records.append(Int32(record))
        if records.count * 2 > slots.count {
            grow()
        } else {
            slots[slot] = (hash >> 32) << 32 | UInt64(records.count)
        }
        return nil
    }

    /// The record whose key is `values[positions]`, ranges in `other` (the bytes of another
    /// snapshot, or of this one).
    func find(key values: [Range<Int>], at positions: [Int], in other: UnsafeBufferPointer<UInt8>) -> Int? {
        let key = positions.lazy.map { values[$0] }
        guard case .found(let entry) = probe(hash(key, in: other), key, in: other) else { return nil }
        return Int(records[entry])
    }

    /// The key of one field set: each field's hash folded into the next.
    private func hash(_ key: some Sequence<Range<Int>>, in bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0
        for range in key { hash = (hash &* 0x9E37_79B9_7F4A_7C15) ^ hashField(bytes, range) }
        return hash
    }

    private enum Probe {
        /// The entry holding the key.
        case found(Int)
        /// No entry holds it: the empty slot where it would go.
        case empty(Int)
    }

    /// The entry holding `key`, whose hash is `hash`, or the slot it would take.
    private func probe(
        _ hash: UInt64, _ key: some Collection<Range<Int>>, in other: UnsafeBufferPointer<UInt8>
    ) -> Probe {
        let tag = hash >> 32
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let content = slots[slot]
            if content == 0 { return .empty(slot) }
            if content >> 32 == tag {
                let entry = Int(content & 0xFFFF_FFFF) - 1
                if equal(entry, key, in: other) { return .found(entry) }
            }
            slot = (slot + 1) & mask
        }
    }

    private func equal(_ entry: Int, _ key: some Collection<Range<Int>>, in other: UnsafeBufferPointer<UInt8>) -> Bool {
        var stored = entry * width
        for range in key {
            let mine = ranges[stored]
            stored += 1
            guard mine.count == range.count else { return false }
            if !UnsafeBufferPointer(rebasing: bytes[mine]).sameBytes(as: UnsafeBufferPointer(rebasing: other[range])) {
                return false
            }
        }
        return true
    }

    private mutating func place(entry: Int, hash: UInt64) {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = (hash >> 32) << 32 | UInt64(entry + 1)
    }

    /// Twice the slots, every entry placed again (its hash made again from its bytes).
    private mutating func grow() {
        slots = [UInt64](repeating: 0, count: slots.count * 2)
        mask = slots.count - 1
        for entry in records.indices {
            place(entry: entry, hash: hash(ranges[(entry * width)..<((entry + 1) * width)], in: bytes))
        }
    }
}
