import Testing

@testable import SeedForge

/// `KeyOrder` keeps of each key only its slot's prefix and what follows it (behind its
/// length up to 8), at 32-bit offsets, and radix-sorts the slots in halves: the order must
/// still be the keys' byte order, shorter first, then position, as `KeyTable` gives it.
@Suite("KeyOrder")
struct KeyOrderTests {
    static func positions(_ keys: [[UInt8]], threads: Int, offsetLimit: Int = Int(UInt32.max)) -> [Int]? {
        KeyOrder.positions(count: keys.count, threads: Threads(threads), offsetLimit: offsetLimit) { index, key in
            key = ByteKey(bytes: keys[index])
        }?.map(Int.init)
    }

    // 100,000 keys make several rounds of 32,768 a thread; 40,000 one round in pieces.
    @Test(arguments: [0, 1, 2, 3, 7, 300, 40_000, 100_000])
    func orderIsTheStableByteOrderOfTheWholeKeys(count: Int) {
        var generator = SplitMix64(state: 17)
        let keys = KeyTableSortTests.randomKeys(count, using: &generator)
        let expected = KeyTableSortTests.reference(keys)
        for threads in 1...3 {
            let order = Self.positions(keys, threads: threads)
            #expect(order?.count == expected.count)
            let differs = expected.indices.first { order == nil || $0 >= order!.count || order![$0] != expected[$0] }
            #expect(differs == nil, "threads \(threads): the orders differ from position \(differs ?? -1)")
        }
    }

    @Test func keysShorterThanTheirPrefixComeBeforeLongerOnesOfTheSamePrefix() {
        // Equal zero-padded prefixes, told apart only by their lengths (the tail's first byte).
        let keys: [[UInt8]] = [
            [0x20, 0x61, 0, 0, 0, 0, 0, 0, 0], [0x20, 0x61, 0, 0, 0, 0, 0, 0], [0x20, 0x61, 0], [0x20, 0x61],
            [0x20, 0x61, 0, 0, 0, 0, 0], [0x20, 0x61], [], [0], [0x20, 0x61, 0, 0, 0, 0, 0, 0, 0, 1],
        ]
        let expected = KeyTableSortTests.reference(keys)
        #expect(expected == [6, 7, 3, 5, 2, 4, 1, 0, 8])
        for threads in 1...3 { #expect(Self.positions(keys, threads: threads) == expected) }
    }

    @Test func keysPastTheOffsetLimitAreLeftToAKeyTable() {
        var generator = SplitMix64(state: 5)
        let keys = KeyTableSortTests.randomKeys(1_000, using: &generator)
        let kept = keys.reduce(0) { $0 + 1 + min(KeyOrder.kept - 1, max(0, $1.count - 8)) }
        #expect(Self.positions(keys, threads: 2, offsetLimit: kept - 1) == nil)
        #expect(Self.positions(keys, threads: 2, offsetLimit: kept) == KeyTableSortTests.reference(keys))
    }

    @Test func keysCutWhereTheyStillTieAreOrderedByTheirWholeBytes() {
        // Like cities of one name and country: equal in the bytes kept, told apart by the id
        // after them; and one key that ends where the others are cut.
        let stem = [UInt8](repeating: 0x61, count: 8 + KeyOrder.kept - 1)
        let keys: [[UInt8]] = [stem + [9, 1], stem + [3], stem + [9, 0], stem, stem + [3], stem + [0], [0x61] + stem]
        let expected = KeyTableSortTests.reference(keys)
        #expect(expected == [3, 5, 1, 4, 2, 0, 6])
        for threads in 1...3 { #expect(Self.positions(keys, threads: threads) == expected) }
    }

    @Test func halvesSortedAndMergedEqualAStableSortByPrefix() {
        var generator = SplitMix64(state: 29)
        for count in [2, 3, 4, 5, 1_001] {
            // Few distinct prefixes, differing in single bytes, so that ties cross the halves.
            let prefixes = (0..<count).map { _ in
                UInt64(Int.random(in: 0..<4, using: &generator))
                    << (8 * UInt64(Int.random(in: 0..<8, using: &generator)))
            }
            var slots = prefixes.enumerated().map { KeyTable.Slot(prefix: $1, position: $0) }
            slots.withUnsafeMutableBufferPointer { KeyOrder.radixSortHalves($0) }
            let expected = prefixes.indices.sorted {
                prefixes[$0] != prefixes[$1] ? prefixes[$0] < prefixes[$1] : $0 < $1
            }
            #expect(slots.map(\.position) == expected, "count \(count)")
            #expect(slots.map(\.prefix) == expected.map { prefixes[$0] })
        }
    }
}
