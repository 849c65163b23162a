import Foundation
import Testing

/// Every run says what changed since the dataset it replaces, as a nightly cron job runs
/// them: the real CLI on copies of the shipped pipelines and fixtures (json, ndjson, html
/// and paginated sources; several collections; group statistics).
@Suite("End to end: changes since the last run", .serialized)
struct ChangesEndToEndTests {
    /// A temporary folder holding copies of these repository files at the same paths.
    static func workspace(_ files: [String]) throws -> TempDir {
        let dir = try TempDir()
        for file in files {
            try dir.write(file, bytes: [UInt8](try Data(contentsOf: CLI.repoRoot.appendingPathComponent(file))))
        }
        return dir
    }

    /// The files under a repository folder, at any depth.
    static func files(under folder: String) throws -> [String] {
        let root = CLI.repoRoot.appendingPathComponent(folder).path
        return try FileManager.default.subpathsOfDirectory(atPath: root).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isFolder)
                && !isFolder.boolValue
        }.map { "\(folder)/\($0)" }
    }

    static func run(_ dir: TempDir, _ pipeline: String, _ extra: [String] = []) throws -> CLI.Result {
        try CLI.run(["run", "pipelines/\(pipeline).yml", "--out", "out"] + extra, cwd: dir.path)
    }

    static func edit(_ dir: TempDir, _ file: String, _ change: (String) -> String) throws {
        let text = try dir.read(file)
        let edited = change(text)
        #expect(edited != text, "the edit of \(file) changed nothing")
        try dir.write(file, edited)
    }

    /// The lines of a dataset's changes.ndjson, parsed by Foundation.
    static func changes(_ dir: TempDir, _ dataset: String) throws -> [[String: Any]] {
        try String(decoding: dir.bytes("out/\(dataset)/changes.ndjson"), as: UTF8.self).split(separator: "\n").map {
            try #require(jsonObject(Data($0.utf8)) as? [String: Any])
        }
    }

    /// A changed record's fields as `name: [old, new]`.
    static func fields(_ entry: [String: Any]) -> [String: [NSObject]] {
        var fields: [String: [NSObject]] = [:]
        for field in entry["fields"] as? [[String: Any]] ?? [] {
            fields[field["field"] as! String] = [field["old"] as! NSObject, field["new"] as! NSObject]
        }
        return fields
    }

    static func manifestChanges(_ dir: TempDir, _ dataset: String) throws -> [String: [String: Any]] {
        let manifest = try #require(jsonObject(dir.bytes("out/\(dataset)/manifest.json")) as? [String: Any])
        return try #require(manifest["changes"] as? [String: [String: Any]])
    }

    @Test func aRenamedShopAndANewReviewAfterSkippedReruns() throws {
        let dir = try Self.workspace([
            "pipelines/honey-shops.yml", "Fixtures/honey-shops/shops.json", "Fixtures/honey-shops/reviews.ndjson",
        ])
        let first = try Self.run(dir, "honey-shops")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("honey-shops: changes not compared: first run, no previous dataset\n"))
        #expect(try dir.read("out/honey-shops/changes.ndjson").isEmpty)
        #expect(try Self.manifestChanges(dir, "honey-shops")["shops"]?["compared"] as? Bool == false)

        // Nothing new: skipped, nothing written, no changes line; a touched input is no change.
        let before = try UnchangedRunTests.state(dir.path + "/out/honey-shops")
        let again = try Self.run(dir, "honey-shops")
        #expect(
            again.stdout
                == "honey-shops: unchanged (same definition, inputs and seedforge version as out/honey-shops), nothing written; --force runs anyway\n"
        )
        try UnchangedRunTests.touch(dir.path + "/Fixtures/honey-shops/shops.json")
        #expect(try Self.run(dir, "honey-shops").stdout.contains("honey-shops: unchanged"))
        #expect(UnchangedRunTests.same(before, try UnchangedRunTests.state(dir.path + "/out/honey-shops")))
        // Forced with the same inputs: compared, and nothing changed.
        let forced = try Self.run(dir, "honey-shops", ["--force"])
        #expect(
            forced.stdout.contains("honey-shops: shops +0 \u{2212}0 ~0, reviews +0 \u{2212}0 ~0 since the last run\n"))
        #expect(try dir.read("out/honey-shops/changes.ndjson").isEmpty)

        // The House of Honey is renamed and moved a little (shops.json writes its position
        // as coordinates: [lat, lon]); a review of it arrives in the NDJSON export.
        try Self.edit(dir, "Fixtures/honey-shops/shops.json") {
            $0.replacingOccurrences(of: "\"The House of Honey\"", with: "\"The Honey House\"")
                .replacingOccurrences(of: "[ -31.8552, 116.0019]", with: "[ -31.8553, 116.0019]")
        }
        try Self.edit(dir, "Fixtures/honey-shops/reviews.ndjson") {
            $0
                + #"{"id": "0b6f7c1e-3a52-4c1e-9d5b-1f0e2a3b4c99", "shopID": "house-of-honey", "createdAt": "2025-11-01T10:00:00Z", "rating": 5.0, "title": "Again"}"#
                + "\n"
        }
        let changed = try Self.run(dir, "honey-shops")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(
            changed.stdout.contains("honey-shops: shops +0 \u{2212}0 ~1, reviews +1 \u{2212}0 ~0 since the last run\n"))
        let entries = try Self.changes(dir, "honey-shops")
        #expect(entries.map { "\($0["collection"]!) \($0["change"]!)" } == ["shops changed", "reviews added"])
        #expect(entries[0]["key"] as? [String: String] == ["id": "house-of-honey"])
        // By the pipeline's field names (latitude, not coordinates/0), with both values.
        let fields = Self.fields(entries[0])
        #expect(fields["name"] == ["The House of Honey", "The Honey House"] as [NSObject])
        #expect(fields["latitude"] == [-31.8552, -31.8553] as [NSObject])
        // (4.5 + 5 + 4 + 3 + 5) / 5: the new review moves the community rating.
        #expect(fields["reviewCount"] == [4, 5] as [NSObject])
        #expect(fields["communityRating"] == [4.13, 4.3] as [NSObject])
        #expect(Set(fields.keys) == ["name", "latitude", "reviewCount", "communityRating", "displayedRating"])
        let review = try #require(entries[1]["record"] as? [String: Any])
        #expect(review["title"] as? String == "Again" && review["shopID"] as? String == "house-of-honey")
        let counts = try Self.manifestChanges(dir, "honey-shops")
        #expect(counts["shops"]?["changed"] as? Int == 1 && counts["shops"]?["unchanged"] as? Int == 7)
        #expect(counts["reviews"]?["added"] as? Int == 1 && counts["reviews"]?["previous"] as? Int == 18)
    }

    @Test func htmlPagesAProductGoneAndAPriceChanged() throws {
        let dir = try Self.workspace(["pipelines/products.yml"] + Self.files(under: "Fixtures/products/catalogue"))
        #expect(try Self.run(dir, "products").status == 0)
        // The acacia honey's card leaves page 2; the wildflower honey costs more on page 1.
        try Self.edit(dir, "Fixtures/products/catalogue/page-2.html") {
            let card = $0.range(of: "<article class=\"product_pod\">")!
            return $0.replacingCharacters(in: card, with: "<article class=\"sold\">")
        }
        try Self.edit(dir, "Fixtures/products/catalogue/page-1.html") {
            $0.replacingOccurrences(of: "£51.77", with: "£53.10")
        }
        let result = try Self.run(dir, "products")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("products: +0 \u{2212}1 ~1 since the last run\n"), "\(result.stdout)")
        let entries = try Self.changes(dir, "products")
        #expect(entries.map { $0["change"] as! String } == ["changed", "removed"])
        #expect(
            (entries[0]["key"] as? [String: String])?["url"]
                == "https://honey-market.example.com/catalogue/products/wildflower-honey-500g.html")
        #expect(Self.fields(entries[0]) == ["price": [51.77, 53.1] as [NSObject]])
        #expect((entries[1]["record"] as? [String: Any])?["name"] as? String == "Acacia Honey, Light and Mild, 1 kg")
        // For cron and log shippers: the same line as a JSON log event.
        let logged = try Self.run(dir, "products", ["--force", "--log-format", "json"])
        #expect(
            logged.stderr.contains(
                #""level":"info","message":"products: +0 \#u{2212}0 ~0 since the last run","dataset":"products"}"#),
            "\(logged.stderr)")
    }

    @Test func paginatedCitiesRenamedAndGroupStatisticsByTheirGroups() throws {
        let dir = try Self.workspace(["pipelines/cities.yml"] + Self.files(under: "Fixtures/cities"))
        #expect(try Self.run(dir, "cities").status == 0)
        try Self.edit(dir, "Fixtures/cities/page-1.json") {
            $0.replacingOccurrences(of: "\"Hurzuf\"", with: "\"Gurzuf\"")
        }
        let result = try Self.run(dir, "cities")
        #expect(result.stdout.contains("cities: +0 \u{2212}1 ~0") == false)
        #expect(result.stdout.contains("cities: +0 \u{2212}0 ~1 since the last run\n"), "\(result.stdout)")
        let entries = try Self.changes(dir, "cities")
        #expect(entries.count == 1 && entries[0]["key"] as? [String: Int] == ["id": 707860])
        // The map app's file writes the id as _id; changes name the pipeline's fields.
        #expect(
            Self.fields(entries[0]) == [
                "name": ["Hurzuf", "Gurzuf"] as [NSObject], "searchKey": ["hurzuf", "gurzuf"] as [NSObject],
            ])

        // Attractions: statistics per city and per category are matched by their groups.
        let guide = try Self.workspace(["pipelines/attractions.yml", "Fixtures/attractions/attractions.json"])
        #expect(try Self.run(guide, "attractions").status == 0)
        try Self.edit(guide, "Fixtures/attractions/attractions.json") {
            // The first attraction, the Eiffel Tower.
            $0.replacingCharacters(in: $0.range(of: "\"rating\": 4.7,")!, with: "\"rating\": 4.9,")
        }
        let rerun = try Self.run(guide, "attractions")
        #expect(
            rerun.stdout.contains(
                "attractions: attractions +0 \u{2212}0 ~1, cityStats +0 \u{2212}0 ~1, categoryStats +0 \u{2212}0 ~1 since the last run\n"
            ), "\(rerun.stdout)")
        let stats = try Self.changes(guide, "attractions").filter { $0["collection"] as? String == "cityStats" }
        #expect(stats.count == 1 && stats[0]["key"] as? [String: String] == ["city": "Paris"])
        #expect(Self.fields(stats[0]).keys.sorted() == ["meanRating"])
        #expect(try Self.manifestChanges(guide, "attractions")["cityStats"]?["key"] as? [String] == ["city"])
    }
}
