import Foundation
import Testing

/// Budgets stop a bad release, as a nightly cron job runs into it: the real CLI on copies
/// of the shipped pipelines and fixtures, with budgets added to the copies.
@Suite("End to end: budgets", .serialized)
struct BudgetsEndToEndTests {
    static func addBudgets(_ dir: TempDir, _ pipeline: String, _ yaml: String) throws {
        let file = "pipelines/\(pipeline).yml"
        try dir.write(file, try dir.read(file) + "\n" + yaml)
    }

    static func manifest(_ folder: String) throws -> [String: Any] {
        try #require(
            jsonObject(Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))) as? [String: Any])
    }

    @Test func aDumpLosingHalfItsCitiesIsStoppedAndTheOldDatasetStays() throws {
        let dir = try ChangesEndToEndTests.workspace(
            ["pipelines/cities.yml"] + ChangesEndToEndTests.files(under: "Fixtures/cities"))
        try Self.addBudgets(
            dir, "cities",
            """
            budgets:
              cities: {min-records: 10, max-removed-fraction: 0.25}
              cities.json: {max-bytes: 1MiB}
            """)
        let first = try ChangesEndToEndTests.run(dir, "cities")
        #expect(first.status == 0, "\(first.stderr)")
        let firstBudgets = try #require(try Self.manifest(dir.path + "/out/cities")["budgets"] as? [String: Any])
        #expect(firstBudgets["exceeded"] as? Int == 0 && firstBudgets["accepted"] as? Bool == false)
        let checks = try #require(firstBudgets["checks"] as? [[String: Any]])
        #expect(checks.map { $0["budget"] as! String } == ["min-records", "max-removed-fraction", "max-bytes"])
        #expect(
            checks[1]["value"] is NSNull
                && checks[1]["detail"] as? String == "not checked: first run, no previous dataset")

        // The backend's pages 2 and 3 come back empty: 20 of the dump's 35 records are gone.
        for page in [2, 3] {
            try ChangesEndToEndTests.edit(dir, "Fixtures/cities/page-\(page).json") { text in
                let start = text.range(of: "\"results\": [")!.upperBound
                return String(text[..<start]) + "]\n}\n"
            }
        }
        let released = try UnchangedRunTests.state(dir.path + "/out/cities")
        let failed = try ChangesEndToEndTests.run(dir, "cities")
        #expect(failed.status == 1)
        #expect(failed.stdout.isEmpty, "\(failed.stdout)")
        #expect(
            failed.stderr
                == """
                cities: over budget, previous dataset left unchanged; the new one is in out/.cities.rejected (release it with --accept-changes):
                  - max-removed-fraction of cities: limit 0.25, value 0.375 (9 of 24 previous records removed)

                """)
        // The released dataset is exactly as it was: same files, same bytes, same inodes.
        #expect(UnchangedRunTests.same(released, try UnchangedRunTests.state(dir.path + "/out/cities")))
        // The new one waits aside, saying what it would have changed.
        let aside = dir.path + "/out/.cities.rejected"
        let rejected = try Self.manifest(aside)
        #expect((rejected["budgets"] as? [String: Any])?["exceeded"] as? Int == 1)
        #expect((rejected["changes"] as? [String: [String: Any]])?["cities"]?["removed"] as? Int == 9)
        let removed = try String(contentsOfFile: aside + "/changes.ndjson", encoding: .utf8)
        #expect(removed.split(separator: "\n").count == 9 && removed.contains(#""change":"removed""#))

        // The next night: the same failure, the aside copy replaced, the dataset still kept.
        try FileManager.default.removeItem(atPath: aside + "/cities.json")
        #expect(try ChangesEndToEndTests.run(dir, "cities").status == 1)
        #expect(FileManager.default.fileExists(atPath: aside + "/cities.json"))
        #expect(UnchangedRunTests.same(released, try UnchangedRunTests.state(dir.path + "/out/cities")))

        // A person looks, and releases it.
        let accepted = try ChangesEndToEndTests.run(dir, "cities", ["--accept-changes"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(
            accepted.stdout.contains(
                "cities: +0 \u{2212}9 ~0 since the last run (over budget, released with --accept-changes)\n"))
        let budgets = try #require(try Self.manifest(dir.path + "/out/cities")["budgets"] as? [String: Any])
        #expect(budgets["accepted"] as? Bool == true && budgets["exceeded"] as? Int == 1)
        #expect(!FileManager.default.fileExists(atPath: aside))
        #expect(try String(contentsOfFile: dir.path + "/out/cities/cities.json", encoding: .utf8).contains("Hurzuf"))
        // Nothing new since: skipped.
        #expect(try ChangesEndToEndTests.run(dir, "cities").stdout.contains("cities: unchanged"))
    }

    @Test func reviewsFloodingInOverSeveralCollectionsBudgets() throws {
        let dir = try HoneyShopsEndToEndTests.workspace()
        try Self.addBudgets(
            dir, "honey-shops",
            """
            budgets:
              shops: {max-changed-fraction: 0.1, min-records: 8}
              reviews: {max-added-fraction: 0.1}
            """)
        #expect(try HoneyShopsEndToEndTests.run(dir).status == 0)
        let released = try UnchangedRunTests.state(dir.path + "/out/honey-shops")
        // Three new reviews of one shop: 3 of 18 reviews added, 1 of 8 shops changed.
        try ChangesEndToEndTests.edit(dir, "Fixtures/honey-shops/reviews.ndjson") { text in
            text
                + (1...3).map {
                    #"{"id": "0b6f7c1e-3a52-4c1e-9d5b-1f0e2a3b4c9\#($0)", "shopID": "hani-honey", "createdAt": "2025-11-0\#($0)T10:00:00Z", "rating": 5.0}"#
                        + "\n"
                }.joined()
        }
        let failed = try HoneyShopsEndToEndTests.run(dir)
        #expect(failed.status == 1)
        #expect(
            failed.stderr.contains(
                """
                  - max-changed-fraction of shops: limit 0.1, value 0.125 (1 of 8 previous records changed)
                  - max-added-fraction of reviews: limit 0.1, value 0.1667 (3 of 18 previous records added)
                """), "\(failed.stderr)")
        #expect(UnchangedRunTests.same(released, try UnchangedRunTests.state(dir.path + "/out/honey-shops")))
        // --accept-changes over budget is recorded; without a budget exceeded it is not.
        #expect(try HoneyShopsEndToEndTests.run(dir, extra: ["--accept-changes"]).status == 0)
        let budgets = try #require(try Self.manifest(dir.path + "/out/honey-shops")["budgets"] as? [String: Any])
        #expect(budgets["accepted"] as? Bool == true)
        let forced = try HoneyShopsEndToEndTests.run(dir, extra: ["--accept-changes", "--force"])
        #expect(forced.status == 0 && !forced.stdout.contains("released with --accept-changes"), "\(forced.stdout)")
        #expect(
            (try Self.manifest(dir.path + "/out/honey-shops")["budgets"] as? [String: Any])?["accepted"] as? Bool
                == false)
    }

    @Test func htmlProductsRemovedAndAnOutputTooLarge() throws {
        let dir = try ChangesEndToEndTests.workspace(
            ["pipelines/products.yml"] + ChangesEndToEndTests.files(under: "Fixtures/products/catalogue"))
        try Self.addBudgets(
            dir, "products", "budgets:\n  products: {max-removed: 0}\n  products.csv: {max-bytes: 2KiB}\n")
        #expect(try ChangesEndToEndTests.run(dir, "products").status == 0)
        try ChangesEndToEndTests.edit(dir, "Fixtures/products/catalogue/page-2.html") {
            $0.replacingCharacters(
                in: $0.range(of: "<article class=\"product_pod\">")!, with: "<article class=\"sold\">")
        }
        let failed = try ChangesEndToEndTests.run(dir, "products")
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("  - max-removed of products: limit 0, value 1 (1 record removed)"))

        // A first run over budget: nothing is released, the new dataset waits aside.
        let fresh = try ChangesEndToEndTests.workspace(
            ["pipelines/products.yml"] + ChangesEndToEndTests.files(under: "Fixtures/products/catalogue"))
        try Self.addBudgets(fresh, "products", "budgets:\n  products.json: {max-bytes: 100}\n")
        let tooLarge = try ChangesEndToEndTests.run(fresh, "products")
        #expect(tooLarge.status == 1)
        #expect(tooLarge.stderr.contains("  - max-bytes of products.json: limit 100, value "), "\(tooLarge.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fresh.path + "/out/products"))
        #expect(FileManager.default.fileExists(atPath: fresh.path + "/out/.products.rejected/products.json"))
        // lint names a misspelt budget with its line.
        try Self.addBudgets(fresh, "products", "  products: {max-remove: 0}\n")
        let lint = try CLI.run(["lint", "pipelines/products.yml"], cwd: fresh.path)
        #expect(lint.status == 2)
        #expect(
            lint.stderr.contains(
                "pipelines/products.yml:46:14: error: unknown key 'max-remove' in budgets of collection 'products'; did you mean 'max-removed'?"
            ), "\(lint.stderr)")
    }
}
