import Foundation
import Testing

@testable import SeedForge

/// Record-by-record steps, then one dedupe, then a sort of the same collection: past the
/// memory limit ingest spills the records as the sort's runs (`SortedAtSpill`), dedupe's
/// losers are left out of their merges by input position, and the sort finds its runs
/// made. The dataset and the duplicates log must be those of the run held in memory.
@Suite("End to end: sorted at spill")
struct SortedAtSpillTests {
    /// 3,000 shops: ids out of input order, names repeated (dedupe keeps the lowest id, not
    /// the first), and a sort key of four values, so most records tie and must keep their
    /// input order.
    static func dump() -> String {
        var lines: [String] = []
        for index in 0..<3_000 {
            let id = index * 7_919 % 3_001
            let name = index % 41 == 0 ? "   " : "  Shop   \(index % 1_700)  "
            lines.append(#"{"id": \#(id), "name": "\#(name)", "group": \#(index * 13 % 4), "tag": "t\#(index)"}"#)
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n]\n"
    }

    static let pipeline = """
        name: shops
        sources:
          shops:
            kind: json
            path: shops.json
            id: id
            fields: {id: integer, name: string, group: integer, tag: string}
        steps:
          - {normalize: trim, collection: shops, field: name, collapse-whitespace: true}
          - {validate: required, collection: shops, field: name}
          - {normalize: search-key, collection: shops, from: name, field: searchKey}
          - {aggregate: dedupe, collection: shops, by: searchKey, keep: lowest, keep-by: id}
          - {aggregate: sort, collection: shops, by: [{field: group, order: desc}]}
        outputs:
          - {file: shops.json, collection: shops}
        thresholds: {max-reject-fraction: 1}
        """

    @Test func theRunsGatheredAtSpillGiveTheRecordsAndDuplicatesOfTheRunInMemory() throws {
        let dir = try TempDir()
        try dir.write("shops.yml", Self.pipeline)
        try dir.write("shops.json", Self.dump())
        let expected = try MemoryLimitTests.dataset(of: "shops.yml", name: "shops", in: dir, out: "plain") { log in
            #expect(!log.contains("spilled as sorted runs"), "\(log)")
        }
        // The test means something only if there are duplicates, rejects and ties.
        #expect(try dir.read("plain/shops/duplicates.ndjson").split(separator: "\n").count > 1_000)
        #expect(try dir.read("plain/shops/rejects.ndjson").contains(#""rule":"required""#))
        for (limit, threads) in [("1", "1"), ("1", "3"), ("4KiB", "1"), ("64KiB", "3")] {
            let actual = try MemoryLimitTests.dataset(
                of: "shops.yml", name: "shops", in: dir, out: "l\(limit)t\(threads)",
                ["--memory-limit", limit, "--threads", threads]
            ) { log in
                #expect(log.contains("shops: spilled as sorted runs of the sort after the dedupe (step 5)"), "\(log)")
            }
            #expect(actual == expected, "--memory-limit \(limit) --threads \(threads): other outputs")
        }
    }
}
