import Testing

@testable import SeedForge

/// The order `KeyTable.sortedPositions` gives (a radix sort of the 8-byte prefixes, then the
/// rest of the keys where prefixes tie) must be the byte order of the keys, shorter first,
/// then input position, exactly as a plain stable sort of the whole keys gives it; and
/// `Reorder` must move records as a copying gather or filter would.
@Suite("KeyTable sort and Reorder")
struct KeyTableSortTests {
    /// Keys like a sort key of city names: a rank byte, then text from a small alphabet so
    /// that many keys share their first 8 bytes or are equal, of every length from empty
    /// to past the prefix, some with zero bytes (a short key and the same key padded with
    /// zeros have the same prefix), and some agreeing in their first 70 bytes.
    static func randomKeys(_ count: Int, using generator: inout some RandomNumberGenerator) -> [[UInt8]] {
        let stems: [[UInt8]] = [
            Array("san jos".utf8), Array("santa c".utf8), Array("saint".utf8), Array("a".utf8), [], [0x20, 0, 0],
            // Past 64 equal bytes the ties are ordered by whole-key comparisons.
            Array(repeating: 0x61, count: 70), Array(repeating: 0x61, count: 63) + [0],
        ]
        let alphabet: [UInt8] = [0x00, 0x01, 0x20, 0x61, 0x62, 0x7A, 0xC3, 0xFF]
        return (0..<count).map { _ in
            var key = stems.randomElement(using: &generator)!
            if Bool.random(using: &generator) { key.insert(0x20, at: 0) }
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                key.append(alphabet.randomElement(using: &generator)!)
            }
            return key
        }
    }

    static func reference(_ keys: [[UInt8]]) -> [Int] {
        keys.indices.sorted { a, b in
            if keys[a] != keys[b] { return keys[a].lexicographicallyPrecedes(keys[b]) }
            return a < b
        }
    }

    static func table(_ keys: [[UInt8]]) -> KeyTable {
        KeyTable.build(count: keys.count, threads: Threads(1)) { index, key in
            key = ByteKey(bytes: keys[index])
            return true
        }
    }

    @Test(arguments: [0, 1, 2, 7, 300, 40_000])
    func sortedPositionsEqualAStableSortOfTheWholeKeys(count: Int) {
        var generator = SplitMix64(state: 48)
        let keys = Self.randomKeys(count, using: &generator)
        let expected = Self.reference(keys)
        let table = Self.table(keys)
        for threads in 1...3 {
            let sorted = table.sortedPositions(threads: Threads(threads))
            // The first place where the orders differ, if any (not the whole arrays).
            #expect(sorted.count == expected.count)
            let differs = expected.indices.first { $0 >= sorted.count || sorted[$0] != expected[$0] }
            #expect(differs == nil, "threads \(threads): the orders differ from position \(differs ?? -1)")
        }
    }

    @Test func prefixesDifferingInAnyByteAreOrdered() {
        // Keys that differ in one byte of the prefix only, so that every radix pass decides.
        var keys: [[UInt8]] = []
        for byte in 0..<8 {
            for value: UInt8 in [0xFF, 0x00, 0x80, 0x7F] {
                var key = [UInt8](repeating: 0x41, count: 9)
                key[byte] = value
                keys.append(key)
            }
        }
        keys += keys.reversed()
        #expect(Self.table(keys).sortedPositions(threads: Threads(2)) == Self.reference(keys))
    }

    @Test func slotsKeepWholePrefixesAndPositionsIn12Bytes() {
        #expect(MemoryLayout<KeyTable.Slot>.stride == 12)
        for (prefix, position) in [
            (UInt64.max, Int(UInt32.max)), (0, 0), (0x8000_0000_0000_0001, 1), (0x0000_0001_FFFF_FFFF, 123_456_789),
        ] as [(UInt64, Int)] {
            var slot = KeyTable.Slot(prefix: prefix, position: position)
            #expect(slot.prefix == prefix && slot.position == position)
            slot.prefix = ~prefix
            #expect(slot.prefix == ~prefix && slot.position == position)
        }
    }

    @Test func permuteMovesEveryElementToItsPlace() {
        var generator = SplitMix64(state: 76)
        for count in [0, 1, 2, 5, 1_000] {
            func make() -> [String] { (0..<count).map { "record \($0) " + String(repeating: "x", count: $0 % 40) } }
            let original = make()
            let order = Array(0..<count).shuffled(using: &generator)
            var moved = original
            Reorder.permute(&moved, by: order, filler: "")
            #expect(moved == order.map { original[$0] })
            // The original array is untouched: a shared array is copied, not moved from.
            #expect(original == make())
        }
    }

    @Test func removeKeepsTheOthersInOrder() {
        var generator = SplitMix64(state: 90)
        let original = (0..<2_000).map { "record \($0)" }
        let dropped = Set((0..<300).map { _ in Int.random(in: 0..<2_000, using: &generator) })
        var kept = original
        Reorder.remove(&kept) { dropped.contains($0) }
        #expect(kept == original.indices.filter { !dropped.contains($0) }.map { original[$0] })
    }
}
