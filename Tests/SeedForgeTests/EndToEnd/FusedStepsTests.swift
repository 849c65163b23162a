import Foundation
import Testing

@testable import SeedForge

/// Consecutive record-by-record steps over a spilled collection run as one pass
/// (`FusedBlock`): the dataset, every reject and warning in its order, and each step's
/// counts in the manifest must be those of the steps run one after the other.
@Suite("End to end: fused record-by-record steps")
struct FusedStepsTests {
    /// 3,000 shops; each step below rejects or warns about different records, spread
    /// through the file, so that the findings of one batch through all the steps would
    /// interleave if the block recorded them as they came.
    static func dump() -> String {
        var lines: [String] = []
        for id in 0..<3_000 {
            let name = id % 41 == 0 ? "   " : "  Shop   \(id % 2_500)  "
            let open = id % 37 == 0 ? "perhaps" : (id % 2 == 0 ? "Yes" : " no ")
            let kind = id % 53 == 0 ? "bakery" : (id % 3 == 0 ? "FOOD " : "Café")
            let lat = id % 29 == 0 ? "95.5" : String(Double(id % 170) - 85)
            lines.append(
                #"{"id": \#(id), "name": "\#(name)", "open": "\#(open)", "kind": "\#(kind)", "lat": \#(lat)}"#)
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
            fields: {id: integer, name: string, open: string, kind: string, lat: number}
        steps:
          - {normalize: trim, collection: shops, field: name, collapse-whitespace: true}
          - {normalize: to-boolean, collection: shops, field: open, into: isOpen, unmapped: "null"}
          - {validate: required, collection: shops, field: name}
          - {validate: range, collection: shops, field: lat, min: -90, max: 90, severity: warning}
          - {normalize: map-values, collection: shops, field: kind, map: {food: [meal], cafe: [coffee]}}
          - {normalize: replace, collection: shops, field: name, pattern: "^Shop 1", with: "Store 1"}
          - {normalize: search-key, collection: shops, from: name, field: searchKey}
          - {aggregate: sort, collection: shops, by: [searchKey, id]}
        outputs:
          - {file: shops.json, collection: shops}
        thresholds: {max-reject-fraction: 1}
        """

    /// The manifest's per-step counts (the rest of it holds times and paths).
    static func steps(_ folder: String) throws -> [NSDictionary] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))
        let manifest = try JSONSerialization.jsonObject(with: data) as! NSDictionary
        return manifest["steps"] as! [NSDictionary]
    }

    @Test func aFusedPassKeepsTheOrderOfFindingsAndEachStepsCounts() throws {
        let dir = try TempDir()
        try dir.write("shops.yml", Self.pipeline)
        try dir.write("shops.json", Self.dump())
        let plain = try CLI.run(["run", "shops.yml", "--out", "plain", "-v"], cwd: dir.path)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!plain.stderr.contains("one pass over the spilled records"), "\(plain.stderr)")
        var expected = try HoneyShopsEndToEndTests.snapshot(dir.path + "/plain/shops")
        expected.removeValue(forKey: "manifest.json")
        // The steps reject, warn and count changes: the test means something only if they do.
        let rejects = try dir.read("plain/shops/rejects.ndjson")
        let warnings = try dir.read("plain/shops/warnings.ndjson")
        #expect(rejects.contains(#""rule":"required""#) && rejects.contains(#""rule":"unmapped""#))
        #expect(warnings.contains(#""rule":"boolean""#) && warnings.contains(#""rule":"range""#))
        let plainSteps = try Self.steps(dir.path + "/plain/shops")
        #expect(plainSteps.contains { ($0["changed"] as? Int ?? 0) > 0 })
        for threads in ["1", "3"] {
            // One byte: every record spills, in batches of four.
            let fused = try CLI.run(
                ["run", "shops.yml", "--out", "t\(threads)", "--memory-limit", "1", "--threads", threads, "-v"],
                cwd: dir.path)
            #expect(fused.status == 0, "\(fused.stderr)")
            // Trim up to search-key is one block, sort is not in it; it runs on the records as
            // ingest spills them, not in a pass of its own.
            #expect(
                fused.stderr.contains(
                    "normalize: trim, normalize: to-boolean, validate: required, validate: range, normalize: map-values, normalize: replace, normalize: search-key shops: run as ingest spilled the records"
                ), "\(fused.stderr)")
            #expect(!fused.stderr.contains("one pass over the spilled records"), "\(fused.stderr)")
            var actual = try HoneyShopsEndToEndTests.snapshot(dir.path + "/t\(threads)/shops")
            actual.removeValue(forKey: "manifest.json")
            #expect(actual == expected, "--threads \(threads): a fused pass changed the outputs")
            #expect(try Self.steps(dir.path + "/t\(threads)/shops") == plainSteps)
        }
    }

    /// A paginated dump's records are put in page order only once the whole source is
    /// read: its steps must not run as ingest spills (in file order), or their rejects and
    /// warnings would come out in another order than without a limit. Here the file names
    /// sort the other way round from the pages they hold.
    @Test func aPaginatedSourcesStepsWaitForPageOrder() throws {
        let dir = try TempDir()
        let shops = Self.dump().split(separator: "\n").filter { $0.hasPrefix("{") }.map {
            $0.hasSuffix(",") ? String($0.dropLast()) : String($0)
        }
        for page in 1...3 {
            let slice = shops[(page - 1) * 1_000..<page * 1_000].joined(separator: ",\n")
            // page 1 in c.json, page 3 in a.json
            let name = ["c", "b", "a"][page - 1]
            try dir.write(
                "pages/\(name).json", #"{"page": \#(page), "total_pages": 3, "results": [\#n\#(slice)\#n]}"#)
        }
        let pipeline = Self.pipeline.replacingOccurrences(
            of: "path: shops.json",
            with: "path: pages/*.json\n    records: /results\n    page-number: /page\n    page-count: /total_pages")
        try dir.write("shops.yml", pipeline)
        let plain = try CLI.run(["run", "shops.yml", "--out", "plain"], cwd: dir.path)
        #expect(plain.status == 0, "\(plain.stderr)")
        var expected = try HoneyShopsEndToEndTests.snapshot(dir.path + "/plain/shops")
        expected.removeValue(forKey: "manifest.json")
        #expect(try dir.read("plain/shops/rejects.ndjson").contains(#""rule":"required""#))
        let limited = try CLI.run(["run", "shops.yml", "--out", "limited", "--memory-limit", "1", "-v"], cwd: dir.path)
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(!limited.stderr.contains("run as ingest spilled the records"), "\(limited.stderr)")
        var actual = try HoneyShopsEndToEndTests.snapshot(dir.path + "/limited/shops")
        actual.removeValue(forKey: "manifest.json")
        #expect(actual == expected, "a paginated source's findings in another order under a memory limit")
    }

    /// `stable-id` reads the ids given before it changes any record: it starts a block of
    /// its own, never follows another step in one.
    @Test func aStepThatReadsItsCollectionFirstStartsANewBlock() throws {
        let dir = try TempDir()
        try dir.write(
            "shops.yml",
            Self.pipeline.replacingOccurrences(
                of: "  - {normalize: replace",
                with: "  - {normalize: stable-id, collection: shops, field: ref, from: [name]}\n  - {normalize: replace"
            ))
        try dir.write("shops.json", Self.dump())
        let plain = try CLI.run(["run", "shops.yml", "--out", "plain", "--quiet"], cwd: dir.path)
        #expect(plain.status == 0, "\(plain.stderr)")
        let fused = try CLI.run(["run", "shops.yml", "--out", "fused", "--memory-limit", "1", "-v"], cwd: dir.path)
        #expect(fused.status == 0, "\(fused.stderr)")
        #expect(
            fused.stderr.contains(
                "normalize: map-values shops: run as ingest spilled the records"), "\(fused.stderr)")
        #expect(
            fused.stderr.contains(
                "normalize: stable-id, normalize: replace, normalize: search-key shops: one pass over the spilled records"
            ), "\(fused.stderr)")
        var expected = try HoneyShopsEndToEndTests.snapshot(dir.path + "/plain/shops")
        var actual = try HoneyShopsEndToEndTests.snapshot(dir.path + "/fused/shops")
        expected.removeValue(forKey: "manifest.json")
        actual.removeValue(forKey: "manifest.json")
        #expect(actual == expected)
        #expect(try Self.steps(dir.path + "/fused/shops") == Self.steps(dir.path + "/plain/shops"))
    }

    /// A dedupe right after the steps that run as ingest spills gets its keys made from the
    /// records as they are spilled (`RecordStore.spillKeys`), and merges them cut by key
    /// ranges on every core: the dataset and the duplicates log (winners by keep-by, ties
    /// by input order) must be those of the run without a limit, for any thread count.
    @Test func aDedupeAfterTheStepsAtIngestGivesTheSameDuplicates() throws {
        let dir = try TempDir()
        try dir.write(
            "shops.yml",
            Self.pipeline.replacingOccurrences(
                of: "  - {aggregate: sort",
                with:
                    "  - {aggregate: dedupe, collection: shops, by: [searchKey], keep: lowest, keep-by: lat}\n  - {aggregate: sort"
            ))
        try dir.write("shops.json", Self.dump())
        let plain = try CLI.run(["run", "shops.yml", "--out", "plain", "--quiet"], cwd: dir.path)
        #expect(plain.status == 0, "\(plain.stderr)")
        var expected = try HoneyShopsEndToEndTests.snapshot(dir.path + "/plain/shops")
        expected.removeValue(forKey: "manifest.json")
        // Names repeat every 2,500 shops: about 500 duplicates, or the test means nothing.
        #expect(try dir.read("plain/shops/duplicates.ndjson").split(separator: "\n").count > 400)
        for (threads, limit) in [("1", "1"), ("3", "1"), ("2", "64KiB")] {
            let out = "t\(threads)-\(limit)"
            let fused = try CLI.run(
                ["run", "shops.yml", "--out", out, "--memory-limit", limit, "--threads", threads, "-v"], cwd: dir.path)
            #expect(fused.status == 0, "\(fused.stderr)")
            #expect(fused.stderr.contains("shops: run as ingest spilled the records"), "\(fused.stderr)")
            var actual = try HoneyShopsEndToEndTests.snapshot(dir.path + "/\(out)/shops")
            actual.removeValue(forKey: "manifest.json")
            #expect(actual == expected, "--threads \(threads) --memory-limit \(limit): other outputs")
        }
    }
}
