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

@Suite("Report: HTML report parts")
struct HTMLReportPartsTests {
    @Test func numbersAreWrittenForPeople() {
        #expect(HTMLText.count(206_352) == "206,352")
        #expect(HTMLText.count(999) == "999")
        #expect(HTMLText.count(-1_000) == "-1,000")
        #expect(HTMLText.number(1234.5) == "1,234.5")
        #expect(HTMLText.number(-0.25) == "-0.25")
        #expect(HTMLText.percent(1, of: 8) == "12.5%")
        #expect(HTMLText.percent(1, of: 10_000) == "<0.1%")
        #expect(HTMLText.percent(0, of: 0) == "–")
        #expect(HTMLText.escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
        #expect(HTMLText.seconds(0.0184) == "18.4 ms")
        #expect(HTMLText.seconds(12.34) == "12.3 s")
    }

    @Test func positionsAreFoundInTheShapesDatasetsUse() throws {
        func find(_ json: String) throws -> Position? {
            try [UInt8](json.utf8).withUnsafeBufferPointer { buffer in
                var reader = JSONReader(bytes: buffer)
                return Position.find(in: try reader.readValue())
            }
        }
        #expect(try find(#"{"coord":{"lon":34.28,"lat":44.55}}"#) == Position(lat: 44.55, lon: 34.28))
        #expect(
            try find(#"{"geometry":{"location":{"lat":-33.89,"lng":151.27}}}"#) == Position(lat: -33.89, lon: 151.27))
        #expect(try find(#"{"coordinates":[47.36,8.55]}"#) == Position(lat: 47.36, lon: 8.55))
        // A first number that cannot be a latitude: GeoJSON's [lon, lat].
        #expect(try find(#"{"coordinates":[151.27,-33.89]}"#) == Position(lat: -33.89, lon: 151.27))
        #expect(try find(#"{"latitude":1,"longitude":2}"#) == Position(lat: 1, lon: 2))
        #expect(try find(#"{"name":"no place","rating":4}"#) == nil)
        #expect(Position(lat: 200.55, lon: 3).onGlobe == false)
    }

    @Test func profilesCountNullsBlanksDistinctValuesAndLengths() {
        var profile = CollectionProfile()
        let records: [[(String, Value)]] = [
            [("name", .string("Hive")), ("rating", .double(4.5)), ("tags", .array([.string("a"), .string("b")]))],
            [("name", .string("  ")), ("rating", .int(4))],
            [("name", .null), ("rating", .double(4.5)), ("tags", .array([.string("a")]))],
            [("rating", .string("n/a"))],
        ]
        for record in records { profile.add(record: .object(JSONObject(record))) }
        let name = profile.fields.first { $0.path == "name" }!
        #expect(name.present == 3 && name.nulls == 1 && name.blanks == 1)
        #expect(name.lengths == [4, 2])
        let rating = profile.fields.first { $0.path == "rating" }!
        #expect(rating.isNumeric && rating.numbers == [4.5, 4, 4.5])
        #expect(rating.typeSummary == "number, string")
        #expect(FieldProfile.histogram(rating.numbers).map(\.count) == [1, 2])
        let tags = profile.fields.first { $0.path == "tags" }!
        #expect(tags.top(5).map { $0.count } == [2, 1])
        #expect(tags.top(5).first?.value == .string("a"))
        // Equal bins past 20 distinct values, every value in one of them.
        let spread = FieldProfile.histogram((0..<100).map(Double.init))
        #expect(spread.count == 20 && spread.map(\.count).reduce(0, +) == 100)
    }
}

@Suite("Report: validate --format html")
struct HTMLValidationReportTests {
    @Test func everyFindingIsListedAndCounted() throws {
        let result = try CLI.run(["validate", "Fixtures/validation/validation.yml", "--format", "html"])
        #expect(result.status == 1, "\(result.stderr)")
        let dom = try ReportDOM(result.stdout)
        let json = try CLI.run(["validate", "Fixtures/validation/validation.yml", "--format", "json"])
        let summary = try #require(
            (try jsonObject(Data(json.stdout.utf8)) as? [String: Any])?["summary"] as? [String: Int])
        let header = try #require(dom.nodes("//p[@data-errors]").first)
        #expect(dom.attribute("data-errors", header).flatMap(Int.init) == summary["errors"])
        #expect(dom.attribute("data-warnings", header).flatMap(Int.init) == summary["warnings"])
        #expect(dom.nodes("//table[@class='examples']/tbody/tr").count == summary["listed"])
        #expect(dom.texts("//tr[@class='error']/td[1]").contains("Fixtures/validation/shops-2.json:1:197"))
        #expect(dom.plotProblems() == [])
        #expect(!result.stdout.contains("<script"))
    }
}
