import Foundation

/// The keys of a whole collection (one per record, as `ByteKey` bytes) in one buffer, with
/// the first eight bytes of each also kept as a number: sorting and grouping a million
/// keys then touch two flat arrays instead of a million separately allocated ones, and
/// most comparisons end on one integer compare.
///
/// Key `i` is `bytes[starts[i]..<starts[i + 1]]`; a record without a key (`encode` said
/// so, e.g. a dedupe key with a null part) is marked absent.
struct KeyTable {
    private(set) var bytes: [UInt8] = []
    private(set) var starts: [Int] = [0]
    /// The first eight bytes of each key, big-endian, zero-padded: comparing them orders
    /// keys as their bytes do whenever they differ.
    private(set) var prefixes: [UInt64] = []
    private(set) var present: [Bool] = []

    var count: Int { prefixes.count }

    /// Encodes `count` keys, `encode(i, &key)` writing key `i` (returning false when the
    /// record has none), on up to `threads` threads; the table is the same for any count.
    static func build(count: Int, threads: Threads, _ encode: (Int, inout ByteKey) -> Bool) -> KeyTable {
        var pieces = Parallel.chunks(count, threads: threads, minimumChunk: 8_192) { range in
            // The first piece becomes the whole table: it makes room for every key (room
            // not yet written takes no memory), so the other pieces are appended to it in
            // place, each freed once it is, instead of all of them copied into a new table
            // (which held every key twice: at a million records the peak of dedupe).
            let room = range.lowerBound == 0 ? count : range.count
            var table = KeyTable()
            table.reserve(room)
            var key = ByteKey()
            for index in range {
                key.removeAll()
                let has = encode(index, &key)
                table.append(has ? key.bytes : [], present: has)
                if index - range.lowerBound == 63 {
                    // Room for the rest at the average size so far, plus an eighth: one
                    // allocation instead of a series of doublings, each copying the keys.
                    let average = table.bytes.count / 64 + 1
                    table.bytes.reserveCapacity(table.bytes.count + (room - 64) * average * 9 / 8)
                }
            }
            return table
        }
        var table = KeyTable()
        swap(&table, &pieces[0])
        for index in pieces.indices.dropFirst() {
            var piece = KeyTable()
            swap(&piece, &pieces[index])
            table.append(contentsOf: piece)
        }
        return table
    }

    /// Adds the keys of another table after this one's (a collection's keys made batch
    /// by batch).
    mutating func append(contentsOf piece: KeyTable) {
        let base = bytes.count
        bytes += piece.bytes
        starts.append(contentsOf: piece.starts.dropFirst().lazy.map { $0 + base })
        prefixes += piece.prefixes
        present += piece.present
    }

    /// Removes every key; with `keepingCapacity`, the arrays keep their memory.
    mutating func removeAll(keepingCapacity: Bool) {
        bytes.removeAll(keepingCapacity: keepingCapacity)
        starts.removeAll(keepingCapacity: keepingCapacity)
        starts.append(0)
        prefixes.removeAll(keepingCapacity: keepingCapacity)
        present.removeAll(keepingCapacity: keepingCapacity)
    }

    mutating func reserve(_ count: Int, bytes byteCount: Int? = nil) {
        bytes.reserveCapacity(byteCount ?? count * 24)
        starts.reserveCapacity(count + 1)
        prefixes.reserveCapacity(count)
        present.reserveCapacity(count)
    }

    mutating func append(_ key: [UInt8], present has: Bool) {
        bytes += key
        starts.append(bytes.count)
        prefixes.append(Self.prefix(of: key))
        present.append(has)
    }

    /// A key's first eight bytes, big-endian, zero-padded.
    static func prefix(of key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var prefix: UInt64 = 0
        for position in 0..<8 {
            prefix <<= 8
            if position < key.count { prefix |= UInt64(key[position]) }
        }
        return prefix
    }

    static func prefix(of key: [UInt8]) -> UInt64 {
        var prefix: UInt64 = 0
        for position in 0..<8 {
            prefix <<= 8
            if position < key.count { prefix |= UInt64(key[position]) }
        }
        return prefix
    }

    /// Byte order of keys `a` and `b` (negative, zero, positive), shorter first on a tie.
    func compare(_ a: Int, _ b: Int, _ buffer: UnsafeBufferPointer<UInt8>) -> Int {
        if prefixes[a] != prefixes[b] { return prefixes[a] < prefixes[b] ? -1 : 1 }
        let (startA, endA, startB, endB) = (starts[a], starts[a + 1], starts[b], starts[b + 1])
        let lengthA = endA - startA
        let lengthB = endB - startB
        let common = min(lengthA, lengthB)
        if common > 8 {
            let order = memcmp(buffer.baseAddress! + startA + 8, buffer.baseAddress! + startB + 8, common - 8)
            if order != 0 { return Int(order) }
        }
        return lengthA - lengthB
    }

    /// The record positions in key order, ties in position order (so any sort algorithm,
    /// and any thread count, gives the same order). The 8-byte prefixes with their
    /// positions are radix-sorted (least significant byte first, so equal prefixes stay in
    /// position order; a byte every prefix shares is skipped); only runs of equal prefixes
    /// look further, 8 bytes at a time (`orderTied`), on up to `threads` threads.
    ///
    /// Consuming: the prefixes (and presence marks) are let go as soon as the slots hold
    /// them, before the radix sort makes its second buffer (at 5M cities 44 MiB off the
    /// sort's peak, which was the run's), when the caller gives the table up
    /// (`(consume table).sortedPositions`); a caller that reads the table afterwards
    /// (sorted runs) sorts a copy and keeps its prefixes.
    consuming func sortedPositions(threads: Threads) -> [Int] {
        var prefixes: [UInt64] = []
        swap(&prefixes, &self.prefixes)
        present = []
        var slots = Self.radixSorted(consume prefixes)
        bytes.withUnsafeBufferPointer { buffer in
            starts.withUnsafeBufferPointer { starts in
                slots.withUnsafeMutableBufferPointer { slots in
                    Self.orderTiedRuns(slots, buffer, starts, skip: 0, threads: threads)
                }
            }
        }
        return slots.map(\.position)
    }

    /// Orders every run of equal prefixes among the radix-sorted slots (`orderTied`), on up
    /// to `threads` threads: key `i` is `bytes[starts[i]..<starts[i + 1]]` without its
    /// first `skip` bytes (`KeyOrder` keeps only what follows the prefix); `finish` is
    /// given each run once it is ordered, on the thread that ordered it.
    static func orderTiedRuns<Offset: FixedWidthInteger>(
        _ slots: UnsafeMutableBufferPointer<Slot>, _ bytes: UnsafeBufferPointer<UInt8>,
        _ starts: UnsafeBufferPointer<Offset>, skip: Int, threads: Threads,
        finish: (UnsafeMutableBufferPointer<Slot>) -> Void = { _ in }
    ) {
        let ties = tiedRuns(slots)
        guard !ties.isEmpty else { return }
        // Contiguous shares of the tied runs, about equal in entries.
        let total = ties.reduce(0) { $0 + $1.count }
        let shares = max(1, min(threads.count, total / 8_192))
        var bounds = [0]
        var seen = 0
        for (index, run) in ties.enumerated() {
            seen += run.count
            if bounds.count < shares, seen * shares >= total * bounds.count { bounds.append(index + 1) }
        }
        if bounds.last != ties.count { bounds.append(ties.count) }
        _ = threads.run(bounds.count - 1) { share in
            for run in ties[bounds[share]..<bounds[share + 1]] {
                let tied = UnsafeMutableBufferPointer(rebasing: slots[run])
                orderTied(tied, depth: 8, bytes, starts, skip: skip)
                finish(tied)
            }
        }
    }

    /// Orders slots, in position order, whose keys agree in their first `depth` bytes
    /// (zero-padded): by the next 8 bytes (zero-padded), then position; where those agree
    /// too, by the 8 after them, and so on; keys agreeing to their ends differ only in
    /// trailing zero bytes, so the shorter comes first, then position. This is the byte
    /// order of the keys, shorter first on a tie, as `compare` gives it. With `skip`, the
    /// stored keys lack their first `skip` bytes, which the tied slots agree on.
    static func orderTied<Offset: FixedWidthInteger>(
        _ slots: UnsafeMutableBufferPointer<Slot>, depth: Int, _ bytes: UnsafeBufferPointer<UInt8>,
        _ starts: UnsafeBufferPointer<Offset>, skip: Int = 0
    ) {
        var slots = slots
        if depth >= 64 {
            // Keys this alike (long equal texts): whole-key comparisons, not deeper recursion.
            slots.sort { a, b in
                let order = compareKeys(a.position, b.position, bytes, starts)
                return order != 0 ? order < 0 : a.position < b.position
            }
            return
        }
        var longer = false
        let stored = depth - skip
        for index in slots.indices {
            let (start, end) = (Int(starts[slots[index].position]), Int(starts[slots[index].position + 1]))
            slots[index].prefix = word(bytes, from: start + stored, to: end)
            if end - start > stored + 8 { longer = true }
        }
        guard longer || slots.contains(where: { $0.prefix != slots[0].prefix }) else {
            // Keys that agree in every byte they have: shorter first, then position.
            slots.sort { a, b in
                let (lengthA, lengthB) = (
                    Int(starts[a.position + 1]) - Int(starts[a.position]),
                    Int(starts[b.position + 1]) - Int(starts[b.position])
                )
                return lengthA != lengthB ? lengthA < lengthB : a.position < b.position
            }
            return
        }
        slots.sort { a, b in a.prefix != b.prefix ? a.prefix < b.prefix : a.position < b.position }
        var start = 0
        for index in 1...slots.count {
            if index < slots.count, slots[index].prefix == slots[start].prefix { continue }
            if index - start > 1 {
                let tied = UnsafeMutableBufferPointer(rebasing: slots[start..<index])
                orderTied(tied, depth: depth + 8, bytes, starts, skip: skip)
            }
            start = index
        }
    }

    /// Byte order of keys `a` and `b` (negative, zero, positive), shorter first on a tie.
    static func compareKeys<Offset: FixedWidthInteger>(
        _ a: Int, _ b: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ starts: UnsafeBufferPointer<Offset>
    )
        -> Int
    {
        let (startA, lengthA) = (Int(starts[a]), Int(starts[a + 1]) - Int(starts[a]))
        let (startB, lengthB) = (Int(starts[b]), Int(starts[b + 1]) - Int(starts[b]))
        let common = min(lengthA, lengthB)
        if common > 0 {
            let order = memcmp(bytes.baseAddress! + startA, bytes.baseAddress! + startB, common)
            if order != 0 { return Int(order) }
        }
        return lengthA - lengthB
    }

    /// Bytes `from..<from + 8` of the buffer as a big-endian number, zero past `end`.
    @inline(__always)
    static func word(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to end: Int) -> UInt64 {
        if end - from >= 8 {
            return UInt64(bigEndian: UnsafeRawPointer(bytes.baseAddress! + from).loadUnaligned(as: UInt64.self))
        }
        var word: UInt64 = 0
        for position in from..<(from + 8) {
            word <<= 8
            if position < end { word |= UInt64(bytes[position]) }
        }
        return word
    }

    /// A key's prefix and its record's position: what the radix sort moves. Three 32-bit
    /// words, 12 bytes, where a `UInt64` and an `Int` took 16: the radix sort holds two
    /// arrays of slots at once, the sort's peak (at 1M cities 8 MB less, at 5M 38 MB).
    struct Slot {
        private var high: UInt32
        private var low: UInt32
        private var index: UInt32

        init(prefix: UInt64, position: Int) {
            high = UInt32(truncatingIfNeeded: prefix >> 32)
            low = UInt32(truncatingIfNeeded: prefix)
            index = UInt32(position)
        }

        var prefix: UInt64 {
            get { UInt64(high) << 32 | UInt64(low) }
            set {
                high = UInt32(truncatingIfNeeded: newValue >> 32)
                low = UInt32(truncatingIfNeeded: newValue)
            }
        }

        var position: Int { Int(index) }
    }

    /// The prefixes with their positions, ordered by prefix, equal prefixes in position
    /// order (`radixSort`).
    static func radixSorted(_ prefixes: consuming [UInt64]) -> [Slot] {
        let count = prefixes.count
        precondition(count <= Int(UInt32.max), "more keys than 32-bit positions hold")
        var slots = [Slot](unsafeUninitializedCapacity: count) { slots, initialized in
            for (position, prefix) in prefixes.enumerated() {
                slots[position] = Slot(prefix: prefix, position: position)
            }
            initialized = count
        }
        // The slots hold the prefixes now.
        prefixes = []
        guard count > 1 else { return slots }
        let spare = UnsafeMutableBufferPointer<Slot>.allocate(capacity: count)
        defer { spare.deallocate() }
        slots.withUnsafeMutableBufferPointer { radixSort($0, spare: spare) }
        return slots
    }

    /// A least-significant-byte-first radix sort of the slots by prefix (stable), through
    /// `spare` (at least as long): one counting pass for all eight bytes, then one pass per
    /// byte that not every prefix shares.
    static func radixSort(_ slots: UnsafeMutableBufferPointer<Slot>, spare: UnsafeMutableBufferPointer<Slot>) {
        let count = slots.count
        guard count > 1 else { return }
        var counts = [Int](repeating: 0, count: 8 * 256)
        counts.withUnsafeMutableBufferPointer { counts in
            for slot in slots {
                var rest = slot.prefix
                for byte in 0..<8 {
                    counts[byte << 8 | Int(rest & 0xFF)] += 1
                    rest >>= 8
                }
            }
        }
        let firstPrefix = slots[0].prefix
        var (from, to) = (slots.baseAddress!, spare.baseAddress!)
        var next = [Int](repeating: 0, count: 256)
        for byte in 0..<8 {
            let shift = UInt64(8 * byte)
            let base = byte << 8
            if counts[base | Int((firstPrefix >> shift) & 0xFF)] == count { continue }
            var sum = 0
            for digit in 0..<256 {
                next[digit] = sum
                sum += counts[base | digit]
            }
            next.withUnsafeMutableBufferPointer { next in
                for index in 0..<count {
                    let slot = from[index]
                    let digit = Int((slot.prefix >> shift) & 0xFF)
                    to[next[digit]] = slot
                    next[digit] += 1
                }
            }
            swap(&from, &to)
        }
        if from != slots.baseAddress! { slots.baseAddress!.update(from: from, count: count) }
    }

    /// The ranges of two or more neighbouring slots with the same prefix.
    static func tiedRuns(_ slots: UnsafeMutableBufferPointer<Slot>) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        guard slots.count > 1 else { return runs }
        var start = 0
        for index in 1...slots.count where index == slots.count || slots[index].prefix != slots[start].prefix {
            if index - start > 1 { runs.append(start..<index) }
            start = index
        }
        return runs
    }

    /// For each record with a key (`encode` returns false for one without), the position
    /// of the first record with an equal key (itself when it is the first); -1 for records
    /// without a key. It needs no table of the keys: each record's
    /// key is encoded, hashed and dropped on up to `threads` threads, and only keys whose
    /// hashes are equal are encoded again to be compared (a duplicate and the first record
    /// of its key, or a rare collision). It holds 8 bytes of hash, a presence byte, 8 to
    /// 16 bytes of hash table and the 8-byte result a record instead of every key's bytes (at 5M cities a
    /// table of keys was about 250 MiB at dedupe's peak). The table is filled in position
    /// order: the result is the same for any thread count. `hashing` is the key hash (a
    /// test gives one that collides, so that keys with equal hashes are told apart).
    static func firstWithEqualKey(
        count: Int, threads: Threads,
        hashing: (UnsafeBufferPointer<UInt8>) -> UInt64 = { KeyTable.hash($0, from: 0, to: $0.count) },
        _ encode: (Int, inout ByteKey) -> Bool
    ) -> [Int] {
        let (hashes, present) = keyHashes(count: count, threads: threads, hashing: hashing, encode)
        return firstWithEqualKey(hashes: hashes, present: present, encode)
    }

    /// Each key's hash, and whether it has a key (`encode` true), made on every core:
    /// `firstWithEqualKey(hashes:present:_:)` takes them (from a shard's partial too).
    static func keyHashes(
        count: Int, threads: Threads,
        hashing: (UnsafeBufferPointer<UInt8>) -> UInt64 = { KeyTable.hash($0, from: 0, to: $0.count) },
        _ encode: (Int, inout ByteKey) -> Bool
    ) -> (hashes: [UInt64], present: [Bool]) {
        var present = [Bool](repeating: false, count: count)
        let hashes = present.withUnsafeMutableBufferPointer { present in
            [UInt64](unsafeUninitializedCapacity: count) { hashes, initialized in
                _ = Parallel.chunks(count, threads: threads, minimumChunk: 16_384) { range in
                    var key = ByteKey()
                    for index in range {
                        key.removeAll()
                        present[index] = encode(index, &key)
                        hashes[index] =
                            present[index]
                            ? key.bytes.withUnsafeBufferPointer { hashing($0) } : 0
                    }
                }
                initialized = count
            }
        }
        return (hashes, present)
    }

    /// `firstWithEqualKey` with the keys' hashes made already (`keyHashes`); `encode` makes
    /// only the keys of records whose hashes meet, to compare them.
    static func firstWithEqualKey(
        hashes: [UInt64], present: [Bool], _ encode: (Int, inout ByteKey) -> Bool
    ) -> [Int] {
        let count = hashes.count
        precondition(count < Int(Int32.max), "more records than a hash table of 32-bit positions holds")
        var capacity = 16
        while capacity < count * 2 { capacity <<= 1 }
        let mask = capacity - 1
        var slots = [Int32](repeating: -1, count: capacity)
        var first = [Int](repeating: -1, count: count)
        var (a, b) = (ByteKey(), ByteKey())
        func equal(_ x: Int, _ y: Int) -> Bool {
            a.removeAll()
            b.removeAll()
            _ = encode(x, &a)
            _ = encode(y, &b)
            return a == b
        }
        for index in 0..<count where present[index] {
            var slot = Int(truncatingIfNeeded: hashes[index]) & mask
            while true {
                let occupant = Int(slots[slot])
                if occupant < 0 {
                    slots[slot] = Int32(index)
                    first[index] = index
                    break
                }
                if hashes[occupant] == hashes[index], equal(occupant, index) {
                    first[index] = occupant
                    break
                }
                slot = (slot + 1) & mask
            }
        }
        return first
    }

    /// A 64-bit hash of a key's bytes (FNV-1a over 8-byte words, then a final mix).
    static func hash(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(end - start)
        var position = start
        let base = UnsafeRawPointer(buffer.baseAddress!)
        while position + 8 <= end {
            hash = (hash ^ base.loadUnaligned(fromByteOffset: position, as: UInt64.self)) &* 0x0000_0100_0000_01B3
            hash ^= hash >> 29
            position += 8
        }
        while position < end {
            hash = (hash ^ UInt64(buffer[position])) &* 0x0000_0100_0000_01B3
            position += 1
        }
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        return hash
    }
}
