import Foundation
import Testing

/// The real `seedforge` binary on the real honey-shops pipeline and fixtures.
@Suite("End to end: honey-shops", .serialized)
struct HoneyShopsEndToEndTests {
    /// A copy of the pipeline and its fixtures in a temporary folder, so a test can
    /// break an input without touching the repository.
    static func workspace() throws -> TempDir {
        let dir = try TempDir()
        for file in [
            "pipelines/honey-shops.yml", "Fixtures/honey-shops/shops.json", "Fixtures/honey-shops/reviews.ndjson",
        ] {
            let bytes = try Data(contentsOf: CLI.repoRoot.appendingPathComponent(file))
            try dir.write(file, bytes: [UInt8](bytes))
        }
        return dir
    }

    static func run(
        _ dir: TempDir, out: String = "out", environment: [String: String] = [:], extra: [String] = []
    ) throws -> CLI.Result {
        try CLI.run(
            ["run", "pipelines/honey-shops.yml", "--out", out] + extra, cwd: dir.path, environment: environment)
    }

    /// Every file of a dataset folder, by name.
    static func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let root = URL(fileURLWithPath: folder)
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder).sorted() {
            var isDirectory: ObjCBool = false
            let url = root.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = try Data(contentsOf: url)
            }
        }
        return files
    }

    func lines(_ data: Data) throws -> [[String: Any]] {
        try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try #require(jsonObject(Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func theDatasetHasTheNumbersAUserReliesOn() throws {
        let dir = try Self.workspace()
        let result = try Self.run(dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                "honey-shops: wrote 8 shops, 18 reviews to out/honey-shops; 18 rejected, 2 duplicates removed, 0 warnings"
            ))
        #expect(result.stderr.isEmpty, "not a terminal: no progress expected, got \(result.stderr)")

        let shops = try #require(jsonObject(dir.bytes("out/honey-shops/shops.json")) as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: shops.map { ($0["id"] as! String, $0) })
        // A shop with reviews shows their mean: (4.5 + 5 + 4 + 3) / 4 = 4.125, rounded to 4.13.
        let house = try #require(byID["house-of-honey"])
        #expect(house["reviewCount"] as? Int == 4)
        #expect(house["communityRating"] as? Double == 4.13)
        #expect(house["seedRating"] as? Double == 4.8)
        #expect(house["displayedRating"] as? Double == 4.13)
        // A shop without reviews shows its seed rating; the community rating is null.
        let zeeuwse = try #require(byID["shop-56cbe7abee83c93b"])
        #expect(zeeuwse["reviewCount"] as? Int == 0)
        #expect(zeeuwse["communityRating"] is NSNull)
        #expect(zeeuwse["displayedRating"] as? Double == 3.8)
        // Sorted by the folded collation of the name: "Ápiculture" sorts under A.
        #expect(
            shops.map { $0["name"] as! String } == [
                "Ápiculture Éclair", "Bienenhaus Zürich", "Hani Honey Company", "Montana Honey Bee Company",
                "The Basin Backyard Honey Shop", "The House of Honey", "Walker Honey Farm", "Zeeuwse Honing",
            ])
        // Stray white space is gone; coordinates came from the [lat, lon] array.
        let zurich = try #require(byID["shop-252fbccdf0f96a9b"])
        #expect(zurich["address"] as? String == "Seefeldstrasse 101, 8008 Zürich, Schweiz")
        #expect(zurich["coordinates"] as? [Double] == [47.3606, 8.5517])

        // Reviews per shop, newest first (instants compared across time zones).
        let reviews = try #require(jsonObject(dir.bytes("out/honey-shops/reviews.json")) as? [[String: Any]])
        let houseReviews = reviews.filter { $0["shopID"] as? String == "house-of-honey" }.map {
            $0["createdAt"] as! String
        }
        #expect(
            houseReviews == [
                "2025-11-01T10:00:00+08:00", "2025-10-02T14:30:00+08:00", "2025-09-18T09:12:00Z",
                "2025-08-20T11:00:00Z",
            ])
        #expect(
            reviews.first { $0["id"] as? String == "0b6f7c1e-3a52-4c1e-9d5b-1f0e2a3b4c02" }?["title"] as? String
                == "Worth the drive")

        // The orphan review is rejected with its reason and exact place.
        let rejects = try lines(dir.bytes("out/honey-shops/rejects.ndjson"))
        let orphan = try #require(rejects.first { $0["id"] as? String == "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d02" })
        #expect(orphan["rule"] as? String == "reference")
        // Paths in datasets are relative to the pipeline's folder, like its `path:` values.
        #expect(orphan["file"] as? String == "../Fixtures/honey-shops/reviews.ndjson")
        #expect(orphan["line"] as? Int == 18)
        #expect(orphan["column"] as? Int == 58)
        #expect(orphan["field"] as? String == "shopID")
        #expect(orphan["value"] as? String == "shop-0000000000000000")
        let doubled = try #require(rejects.first { $0["id"] as? String == "golden-comb" })
        #expect(doubled["rule"] as? String == "range")
        #expect((doubled["message"] as? String)?.contains("rating 7 is above the maximum 5") == true)
        #expect(doubled["pointer"] as? String == "/6/rating")
        #expect((doubled["record"] as? [String: Any])?["name"] as? String == "Golden Comb Apiary")
        #expect(
            Set(rejects.compactMap { $0["rule"] as? String }) == [
                "required", "range", "url", "type", "json-syntax", "pattern", "step", "length", "timestamp",
                "reference",
            ])

        // The duplicate shop is logged with the winner's id.
        let duplicates = try lines(dir.bytes("out/honey-shops/duplicates.ndjson"))
        #expect(duplicates.count == 2)
        #expect(duplicates[0]["winner"] as? String == "shop-44f0ec6af15ffa0c")
        #expect(duplicates[0]["line"] as? Int == 105)

        // Nothing lost: the manifest's accounting balances and matches the files.
        let manifest = try #require(jsonObject(dir.bytes("out/honey-shops/manifest.json")) as? [String: Any])
        let accounting = try #require(manifest["accounting"] as? [String: [String: Any]])
        #expect(accounting["shops"]?["read"] as? Int == 14)
        #expect(accounting["shops"]?["emitted"] as? Int == 8)
        #expect(accounting["shops"]?["rejected"] as? Int == 5)
        #expect(accounting["shops"]?["duplicates"] as? Int == 1)
        #expect(accounting["reviews"]?["read"] as? Int == 32)
        #expect(accounting["reviews"]?["emitted"] as? Int == 18)
        #expect(accounting["reviews"]?["rejected"] as? Int == 13)
        #expect(accounting["reviews"]?["duplicates"] as? Int == 1)
        for (_, entry) in accounting { #expect(entry["balanced"] as? Bool == true) }
        #expect(rejects.count == 18 && reviews.count == 18 && shops.count == 8)
        let inputs = try #require(manifest["inputs"] as? [[String: Any]])
        let shopsBytes = try Data(contentsOf: dir.url.appendingPathComponent("Fixtures/honey-shops/shops.json"))
        #expect(inputs[0]["bytes"] as? Int == shopsBytes.count)
        #expect((inputs[0]["sha256"] as? String)?.count == 64)

        // CSV: RFC 4180 with CRLF, header first, quoted cells with commas.
        let csv = try dir.read("out/honey-shops/shops.csv")
        #expect(
            csv.hasPrefix(
                "id,name,address,latitude,longitude,displayedRating,communityRating,seedRating,reviewCount,website\r\n")
        )
        #expect(
            csv.contains(
                "house-of-honey,The House of Honey,\"Mariani Ave, Henley Brook WA 6055, Australia\",-31.8552,116.0019,4.13,4.13,4.8,4,"
            ))
    }

    @Test func twoRunsAreByteIdenticalApartFromTheRunSection() throws {
        let dir = try Self.workspace()
        #expect(try Self.run(dir, out: "a").status == 0)
        #expect(try Self.run(dir, out: "b").status == 0)
        var first = try Self.snapshot(dir.path + "/a/honey-shops")
        var second = try Self.snapshot(dir.path + "/b/honey-shops")
        #expect(
            first.keys.sorted() == [
                "changes.ndjson", "duplicates.ndjson", "manifest.json", "rejects.ndjson", "reviews.json", "shops.csv",
                "shops.json", "snapshot.ndjson", "warnings.ndjson",
            ])
        func withoutRun(_ data: Data?) throws -> NSDictionary {
            let bytes = try #require(data)
            var manifest = try #require(jsonObject(bytes) as? [String: Any])
            #expect(manifest["run"] != nil)
            manifest.removeValue(forKey: "run")
            return manifest as NSDictionary
        }
        #expect(try withoutRun(first["manifest.json"]) == withoutRun(second["manifest.json"]))
        first.removeValue(forKey: "manifest.json")
        second.removeValue(forKey: "manifest.json")
        #expect(first == second)
    }

    @Test func aRunKilledBeforeTheSwapLeavesThePreviousDatasetExactly() throws {
        let dir = try Self.workspace()
        #expect(try Self.run(dir).status == 0)
        let before = try Self.snapshot(dir.path + "/out/honey-shops")
        // Change an input so a completed run would change the dataset.
        let shops = try dir.read("Fixtures/honey-shops/shops.json").replacingOccurrences(
            of: "\"rating\": 4.8", with: "\"rating\": 4.9")
        try dir.write("Fixtures/honey-shops/shops.json", shops)
        let killed = try Self.run(dir, environment: ["SEEDFORGE_FAULT": "before-swap"])
        #expect(killed.status != 0)
        #expect(try Self.snapshot(dir.path + "/out/honey-shops") == before)
        // The next run cleans up the killed run's staging folder and completes.
        #expect(try Self.run(dir).status == 0)
        #expect(try Self.snapshot(dir.path + "/out/honey-shops") != before)
        let hidden = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out").filter {
            $0.hasPrefix(".") && !$0.hasSuffix(".lock")
        }
        #expect(hidden.isEmpty, "leftovers: \(hidden)")
    }

    @Test func aFailedRunLeavesThePreviousDatasetExactly() throws {
        let dir = try Self.workspace()
        #expect(try Self.run(dir).status == 0)
        let before = try Self.snapshot(dir.path + "/out/honey-shops")
        let good = try dir.read("Fixtures/honey-shops/shops.json")
        try dir.write("Fixtures/honey-shops/shops.json", String(good.dropLast(40)))
        let truncated = try Self.run(dir)
        #expect(truncated.status == 1)
        #expect(truncated.stderr.contains("Fixtures/honey-shops/shops.json:"))
        #expect(try Self.snapshot(dir.path + "/out/honey-shops") == before)

        // A threshold exceeded: most ratings doubled upstream.
        try dir.write(
            "Fixtures/honey-shops/shops.json", good.replacingOccurrences(of: "\"rating\": 4.", with: "\"rating\": 9."))
        let threshold = try Self.run(dir)
        #expect(threshold.status == 1)
        #expect(threshold.stderr.contains("reject threshold exceeded, outputs left unchanged"))
        #expect(threshold.stderr.contains("shops records rejected"))
        #expect(try Self.snapshot(dir.path + "/out/honey-shops") == before)
    }

    @Test func overlappingRunsTakeTurnsAndAgree() throws {
        let dir = try Self.workspace()
        let runs = try (0..<3).map { _ in try CLI.start(["run", "pipelines/honey-shops.yml"], cwd: dir.path) }
        let results = runs.map { $0.finish() }
        #expect(results.map(\.status) == [0, 0, 0], "\(results.map(\.stderr))")
        #expect(try Self.run(dir, out: "single").status == 0)
        var overlapped = try Self.snapshot(dir.path + "/out/honey-shops")
        var single = try Self.snapshot(dir.path + "/single/honey-shops")
        overlapped.removeValue(forKey: "manifest.json")
        single.removeValue(forKey: "manifest.json")
        #expect(overlapped == single)
        let hidden = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out").filter {
            $0.hasPrefix(".") && !$0.hasSuffix(".lock")
        }
        #expect(hidden.isEmpty)
    }

    @Test func aHeldLockTimesOutWithExitCode3() throws {
        let dir = try Self.workspace()
        try FileManager.default.createDirectory(atPath: dir.path + "/out", withIntermediateDirectories: true)
        let fd = open(dir.path + "/out/.honey-shops.lock", O_RDWR | O_CREAT, 0o644)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        let result = try Self.run(dir, extra: ["--lock-timeout", "0.3"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("another run of this pipeline still holds"))
    }
}
