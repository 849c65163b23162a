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
        let pieces = Parallel.chunks(count, threads: threads, minimumChunk: 8_192) { range in
            var table = KeyTable()
            table.reserve(range.count)
            var key = ByteKey()
            for index in range {
                key.removeAll()
                let has = encode(index, &key)
                table.append(has ? key.bytes : [], present: has)
            }
            return table
        }
        if pieces.count == 1 { return pieces[0] }
        var table = KeyTable()
        table.reserve(count, bytes: pieces.reduce(0) { $0 + $1.bytes.count })
        for piece in pieces { table.append(contentsOf: piece) }
        return table
    }

    /// Adds the keys of another table after this one's (a collection's keys made batch
    /// by batch).
    mutating func append(contentsOf piece: KeyTable) {
        let base = bytes.count
        bytes += piece.bytes
        starts += piece.starts.dropFirst().map { $0 + base }
        prefixes += piece.prefixes
        present += piece.present
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

    func equal(_ a: Int, _ b: Int, _ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        prefixes[a] == prefixes[b] && compare(a, b, buffer) == 0
    }

    /// The record positions in key order, ties in position order (so any sort algorithm,
    /// and any thread count, gives the same order): sorted runs on up to `threads`
    /// threads, then merged pairwise.
    func sortedPositions(threads: Threads) -> [Int] {
        bytes.withUnsafeBufferPointer { buffer in
            func less(_ a: Int, _ b: Int) -> Bool {
                let order = compare(a, b, buffer)
                return order != 0 ? order < 0 : a < b
            }
            var runs: [[Int]] = Parallel.chunks(count, threads: threads, minimumChunk: 16_384) { range in
                var run = Array(range)
                run.sort(by: less)
                return run
            }
            while runs.count > 1 {
                let pairs = runs.count / 2
                var merged: [[Int]] = threads.run(pairs) { pair in Self.merge(runs[2 * pair], runs[2 * pair + 1], less)
                }
                if runs.count % 2 == 1 { merged.append(runs[runs.count - 1]) }
                runs = merged
            }
            return runs.first ?? []
        }
    }

    static func merge(_ left: [Int], _ right: [Int], _ less: (Int, Int) -> Bool) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(left.count + right.count)
        var i = 0
        var j = 0
        while i < left.count, j < right.count {
            if less(right[j], left[i]) {
                result.append(right[j])
                j += 1
            } else {
                result.append(left[i])
                i += 1
            }
        }
        result += left[i...]
        result += right[j...]
        return result
    }

    /// For each record with a key, the position of the first record with an equal key
    /// (itself when it is the first); -1 for records without a key. Hashes are computed
    /// on up to `threads` threads; the table is filled in position order.
    func firstWithEqualKey(threads: Threads) -> [Int] {
        bytes.withUnsafeBufferPointer { buffer in
            let hashes: [UInt64] = Parallel.chunks(count, threads: threads, minimumChunk: 16_384) { range in
                range.map { Self.hash(buffer, from: starts[$0], to: starts[$0 + 1]) }
            }.flatMap { $0 }
            var capacity = 16
            while capacity < count * 2 { capacity <<= 1 }
            let mask = capacity - 1
            var slots = [Int](repeating: -1, count: capacity)
            var first = [Int](repeating: -1, count: count)
            for index in 0..<count where present[index] {
                var slot = Int(truncatingIfNeeded: hashes[index]) & mask
                while true {
                    let occupant = slots[slot]
                    if occupant < 0 {
                        slots[slot] = index
                        first[index] = index
                        break
                    }
                    if hashes[occupant] == hashes[index], equal(occupant, index, buffer) {
                        first[index] = occupant
                        break
                    }
                    slot = (slot + 1) & mask
                }
            }
            return first
        }
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
