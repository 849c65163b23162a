import Foundation
import Testing

@testable import SeedForge

/// `seedforge report` and `run --report` on shipped datasets, run through the real binary;
/// the page is read back with libxml2 and compared with the dataset's own files, read
/// with Foundation (an independent JSON reader). Set SEEDFORGE_UPDATE_GOLDEN=1 to rewrite
/// the structure golden files after an intended change.
@Suite("Report: HTML dataset report")
struct HTMLReportTests {
    static let golden = CLI.repoRoot.appendingPathComponent("Tests/SeedForgeTests/Report/Golden")

    /// Runs a shipped pipeline into a temporary folder; returns the folder and its dataset path.
    static func dataset(_ name: String) throws -> (TempDir, String) {
        let dir = try TempDir()
        let run = try CLI.run(["run", "pipelines/\(name).yml", "--out", dir.path, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        return (dir, dir.path + "/" + name)
    }

    static func report(_ folder: String, in dir: TempDir) throws -> String {
        let file = dir.path + "/report.html"
        let result = try CLI.run(["report", folder, "--output", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("report written to \(file)"))
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    static func lines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try jsonObject(Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func honeyShopsReportShowsTheManifestsCountsAndTheFilesFindings() throws {
        let (dir, folder) = try Self.dataset("honey-shops")
        let html = try Self.report(folder, in: dir)
        let dom = try ReportDOM(html)
        let manifest = try #require(
            try jsonObject(Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))) as? [String: Any])
        let accounting = try #require(manifest["accounting"] as? [String: [String: Any]])
        let shown = dom.shownCounts()
        #expect(Set(shown.keys) == Set(accounting.keys))
        for (collection, counts) in accounting {
            for key in ["read", "emitted", "rejected", "duplicates"] {
                #expect(shown[collection]?[key] == counts[key] as? Int, "\(collection) \(key)")
            }
        }
        // The waterfall splits the rejects by rule exactly as rejects.ndjson does.
        let rejects = try Self.lines(folder + "/rejects.ndjson")
        for collection in accounting.keys {
            var byRule: [String: Int] = [:]
            for line in rejects where line["collection"] as? String == collection {
                byRule[line["rule"] as! String, default: 0] += 1
            }
            for (rule, count) in byRule {
                let cell = dom.texts("//td[@data-collection='\(collection)'][@data-flow='rejected:\(rule)']")
                #expect(cell.map { ReportDOM.number($0) } == [count], "\(collection) \(rule)")
            }
        }
        #expect(dom.plotProblems() == [])
        // The first reject of each rule is listed with its file, line and column.
        let first = try #require(
            rejects.first { $0["collection"] as? String == "shops" && $0["rule"] as? String == "url" })
        let place = "\(first["file"]!):\(first["line"]!):\(first["column"]!)"
        #expect(dom.texts("//section[@data-collection='shops']//table[@class='examples']//td").contains(place))
        // Every field of shops.json is profiled.
        let shops = try #require(
            try jsonObject(Data(contentsOf: URL(fileURLWithPath: folder + "/shops.json"))) as? [[String: Any]])
        let profiled = dom.texts("//section[@data-collection='shops']//table[@class='profile']/tbody/tr/th")
        #expect(Set(profiled) == Set(shops.flatMap(\.keys)))
        // Eight shops on the map (all have coordinates), the rejected ones as crosses.
        let map = try #require(dom.nodes("//section[@data-collection='shops']//figure[@data-plot='map']").first)
        #expect(dom.attribute("data-points", map) == "8")
        #expect(Int(dom.attribute("data-rejected-points", map) ?? "") ?? 0 > 0)
        // Self-contained: no script, nothing fetched, a policy that forbids fetching.
        #expect(!html.contains("<script"))
        #expect(dom.nodes("//@src").isEmpty)
        #expect(dom.texts("//@href").allSatisfy { $0.hasPrefix("#") })
        #expect(html.contains("default-src 'none'"))
        // A first run: every collection says why it was not compared.
        #expect(
            dom.texts("//section[@id='changes']/p") == [
                "shops: not compared (first run, no previous dataset).",
                "reviews: not compared (first run, no previous dataset).",
            ])
        try Self.compareStructure(dom, golden: "report-honey-shops.structure")
    }

    /// A real rerun's change report: the renamed city is listed by its id.
    @Test func aRerunsChangesListTheChangedRecordByItsKey() throws {
        let dir = try TempDir()
        for folder in ["pipelines", "Fixtures/cities"] {
            try FileManager.default.createDirectory(
                atPath: dir.path + "/" + folder, withIntermediateDirectories: true)
        }
        try FileManager.default.removeItem(atPath: dir.path + "/Fixtures/cities")
        try FileManager.default.copyItem(
            atPath: CLI.repoRoot.path + "/Fixtures/cities", toPath: dir.path + "/Fixtures/cities")
        try FileManager.default.copyItem(
            atPath: CLI.repoRoot.path + "/pipelines/cities.yml", toPath: dir.path + "/pipelines/cities.yml")
        #expect(try CLI.run(["run", "pipelines/cities.yml", "--out", "out", "--quiet"], cwd: dir.path).status == 0)
        let page = try dir.read("Fixtures/cities/page-1.json")
        #expect(page.contains("\"Hurzuf\""))
        try dir.write("Fixtures/cities/page-1.json", page.replacingOccurrences(of: "\"Hurzuf\"", with: "\"Gurzuf\""))
        #expect(try CLI.run(["run", "pipelines/cities.yml", "--out", "out", "--quiet"], cwd: dir.path).status == 0)
        let html = try Self.report(dir.path + "/out/cities", in: dir)
        let dom = try ReportDOM(html)
        let row = dom.texts("//section[@id='changes']//table[@class='examples']/tbody/tr/td")
        #expect(row.prefix(3) == ["changed", "707860", "name, searchKey"], "\(row)")
    }

    static func compareStructure(_ dom: ReportDOM, golden name: String) throws {
        let file = golden.appendingPathComponent(name)
        let structure = dom.structure()
        if ProcessInfo.processInfo.environment["SEEDFORGE_UPDATE_GOLDEN"] == "1" {
            try Data(structure.utf8).write(to: file)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(structure == expected, "report structure differs from \(file.path)")
    }

    @Test func theSameFolderGivesTheSameBytes() throws {
        let (dir, folder) = try Self.dataset("places")
        let first = try Self.report(folder, in: dir)
        let second = try Self.report(folder, in: dir)
        #expect(first == second)
        let dom = try ReportDOM(first)
        #expect(dom.plotProblems() == [])
        // Reference and appended collections are accounted for too.
        #expect(dom.shownCounts()["cities"]?["reference"] == 24)
        #expect(dom.shownCounts()["nearby"]?["appended"] == 12)
    }

    @Test func changesSectionCountsWhatChangesNdjsonLists() throws {
        let (dir, folder) = try Self.dataset("products")
        try Data(
            """
            {"collection":"products","change":"added","id":"p-new"}
            {"collection":"products","change":"changed","id":"p-1","fields":["price","rating"]}
            {"collection":"products","change":"changed","id":"p-2","fields":["price"]}
            {"collection":"products","change":"removed","id":"p-old"}
            {"collection":"products","change":"changed","id":"p-3","fields":["price","name"]}

            """.utf8
        ).write(to: URL(fileURLWithPath: folder + "/changes.ndjson"))
        let dom = try ReportDOM(try Self.report(folder, in: dir))
        func shown(_ change: String) -> [Int?] {
            dom.texts("//td[@data-collection='products'][@data-change='\(change)']").map { ReportDOM.number($0) }
        }
        #expect(shown("added") == [1])
        #expect(shown("removed") == [1])
        #expect(shown("changed") == [3])
        let fields = dom.texts("//section[@id='changes']//figure[@data-plot='changed-fields']//th")
        #expect(fields == ["price", "rating", "name"])
        #expect(dom.texts("//section[@id='changes']//table[@class='examples']//td").contains("p-old"))
        #expect(dom.plotProblems() == [])
    }

    @Test func aDamagedFileIsAnErrorNamingItsLine() throws {
        let (dir, folder) = try Self.dataset("products")
        try Data("{\"collection\":\"products\",\"change\":\"added\",\"id\":\"a\"}\n{\"collection\": \n".utf8)
            .write(to: URL(fileURLWithPath: folder + "/changes.ndjson"))
        let result = try CLI.run(["report", folder, "--output", dir.path + "/r.html"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("changes.ndjson:2:"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/r.html"))
        let missing = try CLI.run(["report", dir.path + "/nothing-here"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("is not a seedforge dataset folder (no manifest.json)"))
    }

    @Test func runWritesTheReportOfEachDataset() throws {
        let dir = try TempDir()
        let result = try CLI.run([
            "run", "pipelines/products.yml", "pipelines/cities.yml", "--out", dir.path, "--quiet",
            "--report", dir.path + "/{dataset}-report.html",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        for name in ["products", "cities"] {
            let dom = try ReportDOM(try String(contentsOfFile: dir.path + "/\(name)-report.html", encoding: .utf8))
            #expect(dom.texts("//h1") == [name])
        }
        let ambiguous = try CLI.run([
            "run", "pipelines/products.yml", "pipelines/cities.yml", "--out", dir.path, "--report",
            dir.path + "/r.html",
        ])
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr.contains("{dataset}"))
    }

    /// A synthetic dataset of 60,000 records spread over the globe: the map bins them
    /// into one-degree cells and the page stays small.
    @Test func manyPositionsAreBinnedAndThePageStaysSmall() throws {
        let dir = try TempDir()
        let count = 60_000
        var records = "["
        var seed: UInt64 = 42
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        for index in 0..<count {
            let lat = (next() * 160 - 80).rounded() / 1
            let lon = next() * 360 - 180
            records += index == 0 ? "" : ","
            records += "{\"name\":\"City \(index)\",\"country\":\"C\(index % 50)\",\"_id\":\(index),"
            records += "\"coord\":{\"lon\":\(lon),\"lat\":\(lat)}}"
        }
        try dir.write("big/cities.json", records + "]")
        try dir.write(
            "big/manifest.json",
            """
            {"dataset":"big","tool":{"version":"test"},"outputs":[{"file":"cities.json","collection":"cities",\
            "format":"json","records":\(count),"bytes":1,"files":1}],"accounting":{"cities":{"read":\(count),\
            "emitted":\(count),"rejected":0,"duplicates":0,"balanced":true}},"steps":[]}
            """)
        let html = try Self.report(dir.path + "/big", in: dir)
        #expect(html.utf8.count < 2_000_000)
        let dom = try ReportDOM(html)
        #expect(dom.plotProblems() == [])
        let map = try #require(dom.nodes("//figure[@data-plot='map']").first)
        #expect(dom.attribute("data-points", map) == "\(count)")
        #expect(!dom.nodes("//figure[@data-plot='map']//*[contains(@class,'cells')]").isEmpty)
        #expect(dom.shownCounts()["cities"]?["emitted"] == count)
        // Names are all different: their distinct count is exact, and no top-values plot.
        let row = dom.texts("//table[@class='profile']/tbody/tr[th='name']/td")
        #expect(row.count == 7 && row[3] == "60,000")
    }
}
