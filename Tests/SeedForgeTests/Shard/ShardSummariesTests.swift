import Foundation
import Testing

@testable import SeedForge

/// What `merge --partial` adds up: the rating totals of a `rating-summary` and the group
/// summaries of a `group-stats` begun in the shards, one a key, the same in any grouping
/// and order of the partials (so a merge tree gives the bytes of a flat merge).
@Suite("Shard: summaries added up")
struct ShardSummariesTests {
    static func rating(_ key: Value, _ values: [Value]) -> Partial.Rating {
        var total = NumberTotal()
        for value in values { total.add(value) }
        return Partial.Rating(key: key, total: total)
    }

    /// Each rating as `key bytes: count sum`, for comparing results.
    static func shown(_ ratings: [Partial.Rating]?) -> [String] {
        (ratings ?? []).map { rating in
            var bytes: [UInt8] = []
            RecordCodec.encode(rating.key, into: &bytes)
            return "\(bytes): \(rating.total.count) \(rating.total.exact?.text ?? "-")"
        }
    }

    /// Keys the join takes as equal have one spelling, so equal keys have equal bytes.
    @Test func aKeyIsSpeltOneWayOrNotSummedInTheShards() throws {
        func bytes(_ value: Value?) -> [UInt8]? {
            guard let value else { return nil }
            var bytes: [UInt8] = []
            RecordCodec.encode(value, into: &bytes)
            return bytes
        }
        let nfc = Value.string("caf\u{E9}")
        let nfd = Value.string("cafe\u{301}")
        #expect(nfc == nfd, "Swift's strings compare by canonical equivalence, as the join does")
        #expect(bytes(nfc) != bytes(nfd))
        #expect(bytes(ShardRatingSummary.canonical(nfd)) == bytes(nfc))
        #expect(bytes(ShardRatingSummary.canonical(nfc)) == bytes(nfc))
        // U+113C5 and U+113C2 U+113C2 (Tulu-Tigalari, Unicode 16): one text for `==`, which
        // Foundation's NFC on Linux left as two spellings (their totals stayed two).
        let composed = Value.string("\u{113C5}")
        let decomposed = Value.string("\u{113C2}\u{113C2}")
        #expect(composed == decomposed)
        #expect(bytes(ShardRatingSummary.canonical(decomposed)) == bytes(ShardRatingSummary.canonical(composed)))
        #expect(ShardRatingSummary.canonical(.string("S1")) == .string("S1"))
        #expect(ShardRatingSummary.canonical(.int(12)) == .int(12) && ShardRatingSummary.canonical(.null) == .null)
        #expect(ShardRatingSummary.canonical(.double(.nan)) == nil)
        #expect(ShardRatingSummary.canonical(.array([.int(1)])) == nil)
    }

    @Test func ratingTotalsAddUpByKeyInAnyGrouping() throws {
        let nfc = Value.string("caf\u{E9}")
        let nfd = try #require(ShardRatingSummary.canonical(.string("cafe\u{301}")))
        let a = [Self.rating(nfc, [.double(4.5), .int(3)]), Self.rating(.string("S1"), [.double(0.1)])]
        let b = [Self.rating(nfd, [.decimal("2.5"), .null]), Self.rating(.null, [.int(1)])]
        let c = [Self.rating(.string("S1"), [.double(0.2)]), Self.rating(.string("S2"), [])]
        let flat = ShardRatingSummary.combine([a, b, c])
        let trees = [
            ShardRatingSummary.combine([try #require(ShardRatingSummary.combine([c, b])), a]),
            ShardRatingSummary.combine([b, try #require(ShardRatingSummary.combine([a, c]))]),
            ShardRatingSummary.combine([c, a, b]),
        ]
        for tree in trees { #expect(Self.shown(tree) == Self.shown(flat)) }
        let ratings = try #require(flat)
        #expect(ratings.count == 4, "\(Self.shown(flat))")
        let cafe = try #require(ratings.first { $0.key == nfc })
        #expect(cafe.total.count == 3 && cafe.total.exact?.text == "10")
        // Exact: 0.1 + 0.2 is 0.3, not 0.30000000000000004.
        #expect(ratings.first { $0.key == .string("S1") }?.total.exact?.text == "0.3")
        #expect(ratings.first { $0.key == .string("S2") }?.total.count == 0)
    }

    @Test func ratingTotalsThatLeaveTheOrderFreeDigitsAreNotAddedUp() {
        // Each fits 38 digits; their sum, 10^37 in hundredths, does not.
        let small = [Self.rating(.string("S1"), [.double(0.01)])]
        let huge = [Self.rating(.string("S1"), [.double(1e37)])]
        #expect(ShardRatingSummary.combine([small]) != nil && ShardRatingSummary.combine([huge]) != nil)
        #expect(ShardRatingSummary.combine([small, huge]) == nil)
        #expect(ShardRatingSummary.combine([huge, small]) == nil)
    }

    static func summary(file: Int, least: Int, greatest: Int, values: [Double]) -> GroupSummary {
        var summary = GroupSummary(values: [.string("group of file \(file)")], file: file, metrics: 3)
        summary.count = values.count
        for value in values { summary.totals[2].add(.double(value)) }
        for (number, pick) in [(0, least), (1, greatest)] {
            var key = ByteKey()
            key.append(.int(Int64(pick)), text: .exact)
            summary.picks[number] = GroupSummary.Pick(key: key, value: .string("\(pick) of file \(file)"), file: file)
        }
        return summary
    }

    static func shown(_ groups: [(key: ByteKey, summary: GroupSummary)]?) -> [String] {
        (groups ?? []).map { key, summary in
            "\(key.bytes) \(summary.values) \(summary.file) \(summary.count) \(summary.totals[2].exact?.text ?? "-") "
                + "\(summary.picks.map { $0?.value.string ?? "-" })"
        }
    }

    @Test func groupSummariesAddUpInAnyGroupingTheEarliestFileWinningTies() throws {
        var group = ByteKey()
        group.append(.string("g"), text: .folded)
        var other = ByteKey()
        other.append(.string("h"), text: .folded)
        let least = [true, false, false]
        // Files ordered 2, 0, 1 (as a paginated source may order them).
        let order = [1, 2, 0]
        func earlier(_ a: Int, _ b: Int) -> Bool { order[a] < order[b] }
        let parts: [(key: ByteKey, summary: GroupSummary)] = [
            (group, Self.summary(file: 0, least: 3, greatest: 9, values: [0.1, 0.2])),
            (group, Self.summary(file: 1, least: 1, greatest: 9, values: [0.3])),
            (other, Self.summary(file: 1, least: 5, greatest: 5, values: [])),
            (group, Self.summary(file: 2, least: 1, greatest: 4, values: [0.4])),
        ]
        let flat = try #require(ShardGroupStats.combine(parts, least: least, earlier: earlier))
        for grouping in [[[3, 1], [0, 2]], [[0], [2, 3, 1]], [[1, 2, 3, 0]]] {
            let merged = try grouping.flatMap { indices in
                try #require(ShardGroupStats.combine(indices.map { parts[$0] }, least: least, earlier: earlier))
            }
            let tree = ShardGroupStats.combine(merged, least: least, earlier: earlier)
            #expect(Self.shown(tree) == Self.shown(flat), "\(grouping)")
        }
        #expect(flat.count == 2)
        let summary = flat[0].key == group ? flat[0].summary : flat[1].summary
        // The group's first record is in file 2 (first in order); the least 1 is in files 1
        // and 2 (2 first), the greatest 9 in files 0 and 1 (0 first).
        #expect(summary.file == 2 && summary.count == 4 && summary.totals[2].exact?.text == "1")
        #expect(summary.picks.map { $0?.value.string } == ["1 of file 2", "9 of file 0", nil])
    }
}
