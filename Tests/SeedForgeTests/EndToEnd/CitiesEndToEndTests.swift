import Foundation
import Testing

@testable import SeedForge

/// The cities pipeline on its fixture dump: what happens to every dirty record.
@Suite("End to end: cities", .serialized)
struct CitiesEndToEndTests {
    static func workspace() throws -> TempDir {
        let dir = try TempDir()
        var files = ["pipelines/cities.yml"]
        for page in try FileManager.default.contentsOfDirectory(
            atPath: CLI.repoRoot.appendingPathComponent("Fixtures/cities").path)
        {
            files.append("Fixtures/cities/\(page)")
        }
        for file in files {
            try dir.write(file, bytes: [UInt8](try Data(contentsOf: CLI.repoRoot.appendingPathComponent(file))))
        }
        return dir
    }

    func lines(_ data: Data) throws -> [[String: Any]] {
        try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try #require(jsonObject(Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func everyDirtyRecordEndsWhereItShould() throws {
        let dir = try Self.workspace()
        let result = try CLI.run(["run", "pipelines/cities.yml"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("cities: wrote 24 cities to out/cities; 8 rejected, 3 duplicates removed"))

        // The map app's shape: {"country", "name", "_id", "coord": {"lon", "lat"}}.
        let cities = try #require(jsonObject(dir.bytes("out/cities/cities.json")) as? [[String: Any]])
        #expect(cities.allSatisfy { $0.keys.sorted() == ["_id", "coord", "country", "name"] })
        let byID = Dictionary(uniqueKeysWithValues: cities.map { ($0["_id"] as! Int, $0) })
        // Sorted by folded name, then country, then id: Paris FR before Paris US. The
        // folded names are the prefix index's keys, one line per record in dataset order.
        let keyLines = try dir.read("out/cities/prefix-index/keys.tsv").split(separator: "\n").map {
            $0.split(separator: "\t").map(String.init)
        }
        #expect(keyLines.map { Int($0[1]) } == Array(0..<cities.count))
        let keys = keyLines.map { $0[0] }
        #expect(keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) || $0 == $1 })
        let keyOf = Dictionary(uniqueKeysWithValues: zip(cities.map { $0["_id"] as! Int }, keys))
        let paris = cities.filter { $0["name"] as? String == "Paris" }.map { $0["country"] as! String }
        #expect(paris == ["FR", "US"])
        // Normalised names and keys.
        #expect(byID[702550]?["name"] as? String == "Lviv")
        #expect(byID[693805]?["name"] as? String == "Novyi Svit")
        #expect(byID[703447]?["name"] as? String == "Kyiv")
        #expect(keyOf[1_283_240] == "gorkha")
        #expect(keyOf[2_657_896] == "zurich")
        #expect(keyOf[3_093_133] == "lodz")
        // Ids written as integral floats are ids; integer coordinates are numbers.
        #expect(byID[136256]?["name"] as? String == "Qaraçala")
        #expect((byID[1_275_339]?["coord"] as? [String: Any])?["lat"] as? Int == 19)
        // Any script survives, Kosovo's XK is allowed.
        for id in [703448, 1_850_147, 360630, 293397, 786714] { #expect(byID[id] != nil, "\(id) missing") }

        let rejects = try lines(dir.bytes("out/cities/rejects.ndjson"))
        let reasons = Dictionary(
            uniqueKeysWithValues: rejects.map { ("\($0["id"]!)", "\($0["rule"]!): \($0["message"]!)") })
        #expect(
            reasons == [
                "136257.5": "type: field 'id' must be an integer, found number 136257.5",
                "900001": "required: name is required but blank",
                "900002": "required: name is required but blank",
                "6255148": "required: country is required but blank",
                "6255146": "country-code: country \"EU\" is not an ISO 3166-1 alpha-2 country code",
                "900003": "range: latitude 91.5 is above the maximum 90",
                "900004": "range: longitude -200.0 is below the minimum -180",
                "900005": "country-code: country \"ua\" must be upper case: UA",
            ])
        let polar = try #require(rejects.first { $0["id"] as? Int == 900003 })
        #expect(polar["file"] as? String == "../Fixtures/cities/page-3.json")
        #expect(polar["line"] as? Int == 47)
        #expect(polar["pointer"] as? String == "/results/4/coord/lat")

        let duplicates = try lines(dir.bytes("out/cities/duplicates.ndjson"))
        #expect(
            duplicates.map { "\($0["id"]!)->\($0["winner"]!)" } == [
                "707860->707860", "4829799->4829764", "2657897->2657896",
            ])

        let manifest = try #require(jsonObject(dir.bytes("out/cities/manifest.json")) as? [String: Any])
        let accounting = try #require((manifest["accounting"] as? [String: [String: Any]])?["cities"])
        #expect(accounting["read"] as? Int == 35)
        #expect(accounting["balanced"] as? Bool == true)
        let inputs = try #require(manifest["inputs"] as? [[String: Any]])
        #expect(
            inputs.map { $0["file"] as? String } == (1...3).map { "../Fixtures/cities/page-\($0).json" } + [
                "../Fixtures/cities/page-4.json.gz"
            ])

        let query = try CLI.run(["query", "out/cities", "zur"], cwd: dir.path)
        #expect(query.stdout == "Zürich, CH\n")
    }

    @Test func twoRunsGiveIdenticalFilesIncludingSQLite() throws {
        let dir = try Self.workspace()
        #expect(try CLI.run(["run", "pipelines/cities.yml", "--out", "a"], cwd: dir.path).status == 0)
        #expect(try CLI.run(["run", "pipelines/cities.yml", "--out", "b"], cwd: dir.path).status == 0)
        var first = try HoneyShopsEndToEndTests.snapshot(dir.path + "/a/cities")
        var second = try HoneyShopsEndToEndTests.snapshot(dir.path + "/b/cities")
        #expect(
            first["cities.sqlite"] != nil && first["pages/index.json"] != nil && first["prefix-index/keys.tsv"] != nil)
        first.removeValue(forKey: "manifest.json")
        second.removeValue(forKey: "manifest.json")
        #expect(first == second)
    }

    /// Every file of a folder (relative path → bytes).
    static func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let root = URL(fileURLWithPath: folder)
        for case let url as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)! {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                files[String(url.path.dropFirst(root.path.count))] = try Data(contentsOf: url)
            }
        }
        return files
    }

    @Test func aRunKilledWhileWritingPagesLeavesThePreviousDatasetAndNoLeftovers() throws {
        let dir = try Self.workspace()
        #expect(try CLI.run(["run", "pipelines/cities.yml"], cwd: dir.path).status == 0)
        let before = try Self.snapshot(dir.path + "/out/cities")
        #expect(before.keys.contains { $0.hasPrefix("/pages/") })
        // A changed input: a completed run would change the dataset.
        let page = try dir.read("Fixtures/cities/page-1.json").replacingOccurrences(of: "Hurzuf", with: "Gurzuf")
        try dir.write("Fixtures/cities/page-1.json", page)
        // The process dies (abort, as a kill would) after some page files are written.
        let killed = try CLI.run(
            ["run", "pipelines/cities.yml"], cwd: dir.path, environment: ["SEEDFORGE_FAULT": "mid-output"])
        #expect(killed.status != 0)
        #expect(killed.stderr.contains("fault injected at mid-output"))
        let staged = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out").filter {
            $0.hasPrefix(".cities.tmp-")
        }
        #expect(staged.count == 1, "the killed run's half-written folder stays until the next run")
        #expect(try Self.snapshot(dir.path + "/out/cities") == before)
        // The next run removes the half-written folder and completes.
        #expect(try CLI.run(["run", "pipelines/cities.yml"], cwd: dir.path).status == 0)
        let after = try Self.snapshot(dir.path + "/out/cities")
        #expect(after != before)
        #expect(after.keys.sorted() == before.keys.sorted())
        let hidden = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out").filter {
            $0.hasPrefix(".") && !$0.hasSuffix(".lock")
        }
        #expect(hidden.isEmpty, "leftovers: \(hidden)")
    }

    @Test func aRunFailingAfterItsPagesWereCreatedAheadLeavesThePreviousDatasetAndNoLeftovers() throws {
        let dir = try Self.workspace()
        let pipeline = try dir.read("pipelines/cities.yml")
        // The previous dataset has its pages in another folder, so the next run's pages are
        // created ahead (a first run of that folder), after ingest, while the steps run.
        try dir.write(
            "pipelines/cities.yml",
            pipeline.replacingOccurrences(of: "file: pages", with: "file: scroll")
                .replacingOccurrences(of: "pages: pages", with: "pages: scroll"))
        #expect(try CLI.run(["run", "pipelines/cities.yml"], cwd: dir.path).status == 0)
        let before = try Self.snapshot(dir.path + "/out/cities")
        #expect(before.keys.contains("/scroll/1.json"))
        // Fails its threshold once the steps have run (the fixtures have rejects).
        try dir.write(
            "pipelines/cities.yml",
            pipeline.replacingOccurrences(of: "max-reject-fraction: 0.5", with: "max-reject-fraction: 0"))
        let failed = try CLI.run(["run", "pipelines/cities.yml", "--threads", "2"], cwd: dir.path)
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(try Self.snapshot(dir.path + "/out/cities") == before)
        let hidden = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out").filter {
            $0.hasPrefix(".") && !$0.hasSuffix(".lock")
        }
        #expect(hidden.isEmpty, "leftovers: \(hidden)")
        // Completed, the dataset has every page and no file beyond them.
        try dir.write("pipelines/cities.yml", pipeline)
        #expect(try CLI.run(["run", "pipelines/cities.yml", "--threads", "2"], cwd: dir.path).status == 0)
        let after = try Self.snapshot(dir.path + "/out/cities")
        let pages = try jsonObject(after["/pages/index.json"]!) as! [String: Any]
        let count = pages["pageCount"] as! Int
        #expect(
            Set(after.keys.filter { $0.hasPrefix("/pages/") })
                == Set((1...count).map { "/pages/\($0).json" } + ["/pages/index.json"]))
        #expect(after.filter { $0.key.hasPrefix("/pages/") }.values.allSatisfy { !$0.isEmpty })
    }

    static func inode(_ path: String) throws -> UInt64 {
        var info = stat()
        #expect(stat(path, &info) == 0, "\(path)")
        return UInt64(info.st_ino)
    }

    /// With a second thread (as on the machines it runs on); a changed page is a new file,
    /// and the previous dataset's file of that page keeps its bytes (nothing writes into a
    /// file that is, or was, part of a released dataset).
    @Test func aRerunLinksUnchangedPageFilesAndWritesChangedOnes() throws {
        let dir = try Self.workspace()
        let run = ["run", "pipelines/cities.yml", "--threads", "2"]
        #expect(try CLI.run(run, cwd: dir.path).status == 0)
        let pages = dir.path + "/out/cities/pages"
        let first = try (1...3).map { try Self.inode("\(pages)/\($0).json") }
        let firstBytes = try Self.snapshot(pages)
        // Nothing changed: every page file is the same file (hard-linked), same bytes.
        #expect(try CLI.run(run, cwd: dir.path).status == 0)
        #expect(try (1...3).map { try Self.inode("\(pages)/\($0).json") } == first)
        #expect(try Self.snapshot(pages) == firstBytes)
        // Hurzuf, on page 1, moves a little: page 1 is written anew, pages 2 and 3 are linked.
        let page = try dir.read("Fixtures/cities/page-1.json").replacingOccurrences(
            of: "\"lon\": 34.283333", with: "\"lon\": 34.283334")
        try dir.write("Fixtures/cities/page-1.json", page)
        // A second name for the previous page 1, to see that its file was not written into.
        #expect(link("\(pages)/1.json", dir.path + "/previous-page-1.json") == 0)
        #expect(try CLI.run(run, cwd: dir.path).status == 0)
        let third = try (1...3).map { try Self.inode("\(pages)/\($0).json") }
        #expect(third[0] != first[0])
        #expect(Array(third[1...]) == Array(first[1...]))
        #expect(try dir.read("out/cities/pages/1.json").contains("34.283334"))
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("previous-page-1.json")) == firstBytes["/1.json"])
        // The dataset is exactly what a run into an empty folder writes.
        #expect(try CLI.run(["run", "pipelines/cities.yml", "--out", "fresh"], cwd: dir.path).status == 0)
        var linked = try Self.snapshot(dir.path + "/out/cities")
        var fresh = try Self.snapshot(dir.path + "/fresh/cities")
        linked.removeValue(forKey: "/manifest.json")
        fresh.removeValue(forKey: "/manifest.json")
        // Apart from what changed since the dataset it replaced, which a first run cannot say.
        let changes = linked.removeValue(forKey: "/changes.ndjson") ?? Data()
        #expect(
            String(decoding: changes, as: UTF8.self)
                == #"{"collection":"cities","change":"changed","key":{"id":707860},"fields":[{"field":"longitude","old":34.283333,"new":34.283334}]}"#
                + "\n")
        #expect(fresh.removeValue(forKey: "/changes.ndjson")?.isEmpty == true)
        #expect(linked == fresh)
    }
}
