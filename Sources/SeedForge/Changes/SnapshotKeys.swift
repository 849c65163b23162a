/// The keys of a snapshot collection's records, as byte ranges of their lines (no copies),
/// in an open-addressing hash table: finding a record of one snapshot by the key of a
/// record of another costs one hash of the key's bytes. Only the key fields of each line
/// are read (a key in the first field: one value per line).
struct SnapshotKeys {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Key fields per record.
    let width: Int
    /// `width` ranges per record, in record order.
    private(set) var ranges: [Range<Int>] = []
    /// Record number + 1 per slot; 0 is empty.
    private var slots: [Int32] = []
    private var mask = 0

    /// Two records sharing a key: their numbers (0-based).
    struct Duplicate: Error {
        let first: Int
        let second: Int
    }

    /// Reads the keys at `positions` of every line; throws `Duplicate` for a key seen twice,
    /// and the number of a line that cannot be read as `Unreadable`.
    init(_ collection: Snapshot.Collection, of snapshot: Snapshot, positions: [Int]) throws {
        bytes = snapshot.bytes
        width = positions.count
        let last = positions.max() ?? 0
        ranges.reserveCapacity(collection.lines.count * width)
        var found = [Range<Int>](repeating: 0..<0, count: last + 1)
        for (number, line) in collection.lines.enumerated() {
            guard (try? snapshot.values(of: line, upTo: last, into: &found)) == true else {
                throw Unreadable(record: number)
            }
            for position in positions { ranges.append(found[position]) }
        }
        var capacity = 16
        while capacity < collection.lines.count * 2 { capacity <<= 1 }
        slots = [Int32](repeating: 0, count: capacity)
        mask = capacity - 1
        for record in 0..<collection.lines.count {
            var slot = hash(record) & mask
            while slots[slot] != 0 {
                let other = Int(slots[slot]) - 1
                if equal(other, self, record) { throw Duplicate(first: other, second: record) }
                slot = (slot + 1) & mask
            }
            slots[slot] = Int32(record + 1)
        }
    }

    struct Unreadable: Error {
        let record: Int
    }

    func key(_ record: Int) -> ArraySlice<Range<Int>> { ranges[(record * width)..<((record + 1) * width)] }

    func hash(_ record: Int) -> Int {
        var hasher = Hasher()
        for range in key(record) {
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])))
            hasher.combine(0 as UInt8)
        }
        return hasher.finalize()
    }

    /// Whether this table's `record` has the key of `other`'s `otherRecord`.
    func equal(_ record: Int, _ other: SnapshotKeys, _ otherRecord: Int) -> Bool {
        for (mine, theirs) in zip(key(record), other.key(otherRecord)) {
            guard mine.count == theirs.count,
                UnsafeBufferPointer(rebasing: bytes[mine]).elementsEqual(
                    UnsafeBufferPointer(rebasing: other.bytes[theirs]))
            else { return false }
        }
        return true
    }

    /// The record of this table with the key of `other`'s `record`.
    func find(_ other: SnapshotKeys, _ record: Int) -> Int? {
        var slot = other.hash(record) & mask
        while slots[slot] != 0 {
            let candidate = Int(slots[slot]) - 1
            if equal(candidate, other, record) { return candidate }
            slot = (slot + 1) & mask
        }
        return nil
    }
}
