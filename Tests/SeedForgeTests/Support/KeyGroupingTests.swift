import Testing

@testable import SeedForge

/// Dedupe groups records by hashing their keys without keeping them
/// (`KeyTable.firstWithEqualKey(count:threads:_:)`), and sort builds its table of keys in
/// pieces appended to the first: both must give what a plain dictionary of whole keys and
/// a table built on one thread give, for any thread count.
@Suite("Key grouping without a table, and tables built in pieces")
struct KeyGroupingTests {
    /// Keys shaped like dedupe keys of cities (a folded name, a country, rounded
    /// coordinates): many repeated, some absent (a null part), some equal in their first
    /// bytes and differing after.
    static func keys(_ count: Int, seed: UInt64) -> [[UInt8]?] {
        var generator = SplitMix64(state: seed)
        let names = ["san jose", "santa cruz", "saint louis", "springfield", "", "a", "san jose de las lajas"]
        let countries = ["US", "CR", "MX", "PH", ""]
        return (0..<count).map { _ in
            if Int.random(in: 0..<50, using: &generator) == 0 { return nil }
            let name = names.randomElement(using: &generator)!
            let country = countries.randomElement(using: &generator)!
            let latitude = Int.random(in: 0..<40, using: &generator)
            return Array("\(name)\u{0}\(country)\u{0}\(latitude)".utf8)
        }
    }

    /// The first position of each key, by a dictionary of the whole keys; -1 when absent.
    static func reference(_ keys: [[UInt8]?]) -> [Int] {
        var firstOf: [[UInt8]: Int] = [:]
        return keys.indices.map { index in
            guard let key = keys[index] else { return -1 }
            if let first = firstOf[key] { return first }
            firstOf[key] = index
            return index
        }
    }

    @Test(arguments: [0, 1, 2, 500, 50_000])
    func hashedGroupingEqualsADictionaryOfWholeKeys(count: Int) {
        let keys = Self.keys(count, seed: 11 + UInt64(count))
        let expected = Self.reference(keys)
        for threads in 1...3 {
            let first = KeyTable.firstWithEqualKey(count: keys.count, threads: Threads(threads)) { index, key in
                guard let bytes = keys[index] else { return false }
                key = ByteKey(bytes: bytes)
                return true
            }
            #expect(first.count == expected.count)
            let differs = expected.indices.first { $0 >= first.count || first[$0] != expected[$0] }
            #expect(differs == nil, "threads \(threads): groups differ from position \(differs ?? -1)")
        }
    }

    /// Hashes made apart (a shard makes its survivors' and the finish groups them) group
    /// as the keys do, whatever the threads that made them.
    @Test func hashesMadeApartGroupAsTheKeysDo() {
        let keys = Self.keys(20_000, seed: 31)
        func encode(_ index: Int, _ key: inout ByteKey) -> Bool {
            guard let bytes = keys[index] else { return false }
            key = ByteKey(bytes: bytes)
            return true
        }
        let (hashes, present) = KeyTable.keyHashes(count: keys.count, threads: Threads(3), encode)
        #expect(present == keys.map { $0 != nil })
        #expect(KeyTable.keyHashes(count: keys.count, threads: Threads(1), encode).hashes == hashes)
        #expect(KeyTable.firstWithEqualKey(hashes: hashes, present: present, encode) == Self.reference(keys))
    }

    /// Keys whose hashes are equal but whose bytes differ stay apart: with a hash that
    /// gives every key the same value (every probe meets a collision), and one that gives
    /// the key's length (many collisions, some keys equal).
    @Test(arguments: ["constant", "length"])
    func keysWithEqualHashesAreComparedWhole(hash: String) {
        let keys = Self.keys(3_000, seed: 23)
        let expected = Self.reference(keys)
        for threads in 1...3 {
            let first = KeyTable.firstWithEqualKey(
                count: keys.count, threads: Threads(threads),
                hashing: { hash == "constant" ? 42 : UInt64($0.count) }
            ) { index, key in
                guard let bytes = keys[index] else { return false }
                key = ByteKey(bytes: bytes)
                return true
            }
            #expect(first == expected, "threads \(threads)")
        }
    }

    @Test func aTableBuiltInPiecesEqualsOneBuiltOnOneThread() {
        // Enough keys for three pieces of at least 8,192.
        let keys = Self.keys(40_000, seed: 5)
        func build(_ threads: Int) -> KeyTable {
            KeyTable.build(count: keys.count, threads: Threads(threads)) { index, key in
                guard let bytes = keys[index] else { return false }
                key = ByteKey(bytes: bytes)
                return true
            }
        }
        let one = build(1)
        #expect(one.count == keys.count)
        for threads in 2...3 {
            let pieces = build(threads)
            #expect(pieces.bytes == one.bytes)
            #expect(pieces.starts == one.starts)
            #expect(pieces.prefixes == one.prefixes)
            #expect(pieces.present == one.present)
            #expect(pieces.sortedPositions(threads: Threads(threads)) == one.sortedPositions(threads: Threads(1)))
        }
    }
}
