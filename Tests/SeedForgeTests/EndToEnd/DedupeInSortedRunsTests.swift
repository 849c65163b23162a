import Foundation
import Testing

@testable import SeedForge

/// A dedupe whose groups the sort after it brings together (its text key fields compared
/// exactly begin the sort's keys, `keep-by` is the sort's only other key): past the memory
/// limit it finds its duplicates in the sort's runs gathered at spill, and no key runs of
/// its own are gathered. Winners, duplicates log and dataset must be those of the run held
/// in memory, whatever the limit and thread count.
@Suite("End to end: dedupe found in the sort's runs")
struct DedupeInSortedRunsTests {
    /// 4,000 cities with what decides a winner: ids out of input order, repeated (ties keep
    /// input order) or null (never winning over an id); countries in two cases (two groups,
    /// one block of the folded collation); null countries (never merged); coordinates that
    /// round together or apart, or a null latitude (a key never merged, first of its block or
    /// not); a name written composed and decomposed (one text).
    static func dump() -> String {
        var lines: [String] = []
        for index in 0..<4_000 {
            let id = index % 97 == 0 ? "null" : String(index * 7_919 % 1_201)
            let names = ["Kyiv", "Lviv", "Caf\u{E9}", "Cafe\u{301}", "Odesa", "Dnipro", "Rivne"]
            let name = names[index * 31 % names.count] + (index % 5 == 0 ? "" : " \(index % 60)")
            let country = index % 53 == 0 ? "null" : (index % 9 == 0 ? #""ua""# : #""UA""#)
            let latitude =
                index % 41 == 0 ? "null" : String(50 + Double(index % 3) * 0.004 + (index % 7 == 0 ? 0.2 : 0))
            lines.append(
                #"{"id": \#(id), "name": "\#(name)", "country": \#(country), "lat": \#(latitude), "lon": 30.5}"#)
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n]\n"
    }

    static func pipeline(dedupe: String, sort: String) -> String {
        """
        name: cities
        sources:
          cities:
            kind: json
            path: cities.json
            fields: {id: integer, name: string, country: string, lat: number, lon: number}
        steps:
          - {normalize: trim, collection: cities, field: name}
          - {normalize: search-key, collection: cities, from: name, field: searchKey}
          - {aggregate: dedupe, collection: cities, \(dedupe)}
          - {aggregate: sort, collection: cities, by: \(sort)}
        outputs:
          - {file: cities.json, collection: cities}
        thresholds: {max-reject-fraction: 1}
        """
    }

    /// (dedupe, sort, whether dedupe finds its duplicates in the sort's runs)
    static let cases: [(String, String, Bool)] = [
        (
            "by: [searchKey, country, lat, lon], precision: 2, keep: lowest, keep-by: id",
            "[{field: searchKey, collation: exact}, country, id]", true
        ),
        (
            "by: [searchKey, country], keep: highest, keep-by: id", "[country, {field: id, order: desc}, searchKey]",
            true
        ),
        ("by: [searchKey, country, lat], keep: first", "[searchKey, country]", true),
        // Folded here, compared exactly there; keep-by not the sort's other key; a number
        // among the sort's keys that this dedupe rounds: each gathers its own key runs.
        ("by: [searchKey, country], fold: true, keep: lowest, keep-by: id", "[searchKey, country, id]", false),
        ("by: [searchKey, country], keep: lowest, keep-by: id", "[searchKey, country, lat]", false),
        ("by: [searchKey, lat], precision: 2, keep: first", "[searchKey, lat]", false),
    ]

    @Test(arguments: cases.indices)
    func theDuplicatesAreThoseOfTheRunInMemory(_ number: Int) throws {
        let (dedupe, sort, inRuns) = Self.cases[number]
        let dir = try TempDir()
        try dir.write("cities.yml", Self.pipeline(dedupe: dedupe, sort: sort))
        try dir.write("cities.json", Self.dump())
        let expected = try MemoryLimitTests.dataset(of: "cities.yml", name: "cities", in: dir, out: "plain")
        // The case means something only with duplicates to find.
        #expect(try dir.read("plain/cities/duplicates.ndjson").split(separator: "\n").count > 100)
        for (limit, threads) in [("1", "1"), ("4KiB", "3"), ("64KiB", "1"), ("64KiB", "3")] {
            let actual = try MemoryLimitTests.dataset(
                of: "cities.yml", name: "cities", in: dir, out: "l\(limit)t\(threads)",
                ["--memory-limit", limit, "--threads", threads]
            ) { log in
                #expect(log.contains("cities: spilled as sorted runs of the sort after the dedupe"), "\(log)")
                #expect(log.contains("the dedupe finds its duplicates in them") == inRuns, "\(log)")
            }
            #expect(actual == expected, "\(dedupe) / \(sort), --memory-limit \(limit) --threads \(threads)")
        }
    }

    /// One run of equal first keys holding more keys than dedupe keeps for one (an eighth of
    /// the limit, at least 1 MiB: 30,000 cities of one name and country, most at their own
    /// place): that run's keys go to disk as sorted runs of their own (`LargeBlock`).
    @Test func aRunOfEqualFirstKeysPastTheBudgetGivesTheDatasetOfTheRunInMemory() throws {
        var lines: [String] = []
        for index in 0..<30_000 {
            let latitude = Double(index % 25_000) / 100
            lines.append(
                #"{"id": \#(index * 7 % 30_011), "name": "Kyiv", "country": "UA", "lat": \#(latitude), "lon": 30.5}"#)
        }
        let dir = try TempDir()
        try dir.write("cities.yml", Self.pipeline(dedupe: Self.cases[0].0, sort: Self.cases[0].1))
        try dir.write("cities.json", "[\n" + lines.joined(separator: ",\n") + "\n]\n")
        let expected = try MemoryLimitTests.dataset(of: "cities.yml", name: "cities", in: dir, out: "plain")
        #expect(try dir.read("plain/cities/duplicates.ndjson").split(separator: "\n").count == 5_000)
        let actual = try MemoryLimitTests.dataset(
            of: "cities.yml", name: "cities", in: dir, out: "limited", ["--memory-limit", "1MiB"]
        ) { log in
            #expect(log.contains("the dedupe finds its duplicates in them"), "\(log)")
        }
        #expect(actual == expected)
    }

    /// Where the sort's first key parts end in its keys: read back from keys `ByteKey` made,
    /// for exact and folded text, ascending and descending, an escaped 0x00, non-ASCII text,
    /// null and the other values a text field may hold.
    @Test func thePrefixOfASortKeyEndsWhereItsPartsEnd() {
        let field = FieldID(index: 0)
        let texts: [Value] = [.string("Kyiv"), .string("a\u{0}b"), .string("Caf\u{E9}"), .string(""), .null]
        for collation in TextOrder.allCases {
            for descending in [false, true] {
                let part = Sort.Key(field: field, descending: descending, collation: collation, timestamp: false)
                for first in texts {
                    for second in texts {
                        var prefix = ByteKey()
                        prefix.append(first, text: collation, descending: descending)
                        prefix.append(second, text: collation, descending: descending)
                        var whole = prefix
                        whole.append(.int(42), text: .exact)
                        let found = whole.bytes.withUnsafeBufferPointer { key in
                            [part, part].withUnsafeBufferPointer { Dedupe.prefix(of: key, parts: $0) }
                        }
                        #expect(found.length == prefix.bytes.count, "\(first) \(second) \(collation) \(descending)")
                        #expect(found.null == (first.isNull || second.isNull))
                    }
                }
                // Any other value a text field may hold: a number, a boolean, an array.
                for other in [Value.int(7), .double(-2.5), .bool(true), .array([.string("a\u{0}")])] {
                    var prefix = ByteKey()
                    prefix.append(other, text: collation, descending: descending)
                    var whole = prefix
                    whole.append(.string("tail"), text: .exact)
                    let found = whole.bytes.withUnsafeBufferPointer { key in
                        [part].withUnsafeBufferPointer { Dedupe.prefix(of: key, parts: $0) }
                    }
                    #expect(found.length == prefix.bytes.count && !found.null, "\(other) \(collation) \(descending)")
                }
            }
        }
    }
}
