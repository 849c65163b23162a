import Foundation
import Testing

/// `seedforge diff OLD NEW` on two dataset folders written by the real CLI.
@Suite("End to end: seedforge diff", .serialized)
struct DiffEndToEndTests {
    /// The cities dataset released, then a run with Hurzuf renamed and Albuquerque's name blank (rejected).
    static func twoDatasets() throws -> TempDir {
        let dir = try ChangesEndToEndTests.workspace(
            ["pipelines/cities.yml"] + ChangesEndToEndTests.files(under: "Fixtures/cities"))
        #expect(try CLI.run(["run", "pipelines/cities.yml", "--out", "released"], cwd: dir.path).status == 0)
        try ChangesEndToEndTests.edit(dir, "Fixtures/cities/page-1.json") {
            $0.replacingOccurrences(of: "\"Hurzuf\"", with: "\"Gurzuf\"").replacingOccurrences(
                of: "\"Albuquerque\"", with: "\"   \"")
        }
        #expect(try CLI.run(["run", "pipelines/cities.yml", "--out", "out"], cwd: dir.path).status == 0)
        return dir
    }

    @Test func textJSONMarkdownAndGitHubWithDiffsExitCodes() throws {
        let dir = try Self.twoDatasets()
        let diff = { (format: String) in
            try CLI.run(["diff", "released/cities", "out/cities", "--format", format], cwd: dir.path)
        }
        let text = try diff("text")
        #expect(text.status == 1, "\(text.stderr)")
        #expect(
            text.stdout == """
                cities: +0 \u{2212}1 ~1 (24 → 23 records)
                  ~ id=707860: name "Hurzuf" → "Gurzuf", searchKey "hurzuf" → "gurzuf"
                  \u{2212} id=5454711: {"id":5454711,"name":"Albuquerque","country":"US","latitude":35.084492,"longitude":-106.651138,"searchKey":"albuquerque"}

                """)

        let json = try #require(jsonObject(Data(try diff("json").stdout.utf8)) as? [String: Any])
        #expect(json["differs"] as? Bool == true && json["old"] as? String == "released/cities")
        let counts = try #require((json["collections"] as? [String: [String: Any]])?["cities"])
        #expect(counts["removed"] as? Int == 1 && counts["changed"] as? Int == 1 && counts["unchanged"] as? Int == 22)
        #expect((json["changes"] as? [[String: Any]])?.map { $0["change"] as! String } == ["changed", "removed"])

        let markdown = try diff("markdown").stdout
        #expect(markdown.hasPrefix("### Dataset changes: `released/cities` → `out/cities`\n"))
        #expect(markdown.contains("| cities | 0 | 1 | 1 | 22 | 24 → 23 |\n"))
        #expect(
            markdown.contains(
                "| changed | `id=707860` | `name`: `\"Hurzuf\"` → `\"Gurzuf\"`<br>`searchKey`: `\"hurzuf\"` → `\"gurzuf\"` |"
            ))

        let github = try diff("github").stdout
        #expect(
            github.hasPrefix(
                "::notice file=out/cities/snapshot.ndjson,title=cities +0 \u{2212}1 ~1::cities: +0 \u{2212}1 ~1 (24 → 23 records)%0A~ id=707860: name \"Hurzuf\" → \"Gurzuf\""
            ), "\(github)")

        // --max-records caps the listing, never the counts.
        let capped = try CLI.run(["diff", "released/cities", "out/cities", "--max-records", "1"], cwd: dir.path)
        #expect(capped.stdout.contains("  … and 1 more (--max-records)\n") && capped.stdout.contains("+0 \u{2212}1 ~1"))

        // The same dataset: exit 0.
        let same = try CLI.run(["diff", "out/cities", "out/cities"], cwd: dir.path)
        #expect(same.status == 0 && same.stdout == "cities: +0 \u{2212}0 ~0 (23 → 23 records)\n")
    }

    @Test func foldersThatAreNotDatasetsAreUsageErrors() throws {
        let dir = try Self.twoDatasets()
        let missing = try CLI.run(["diff", "released/cities", "nowhere"], cwd: dir.path)
        #expect(missing.status == 2 && missing.stderr == "error: nowhere: no such dataset folder\n")
        // A dataset written before snapshots existed.
        try FileManager.default.removeItem(atPath: dir.path + "/released/cities/snapshot.ndjson")
        let older = try CLI.run(["diff", "released/cities", "out/cities"], cwd: dir.path)
        #expect(older.status == 2)
        #expect(older.stderr.contains("released/cities has no snapshot.ndjson"), "\(older.stderr)")
        // A damaged snapshot names its line.
        try dir.write("out/cities/snapshot.ndjson", "{\"format\":\"seedforge-snapshot\",\"version\":1}\n{}\n")
        let damaged = try CLI.run(["diff", "out/cities", "out/cities"], cwd: dir.path)
        #expect(damaged.status == 2)
        #expect(
            damaged.stderr
                == "error: out/cities/snapshot.ndjson cannot be read: line 2: a collection header needs collection, fields and records\n"
        )
        #expect(try CLI.run(["diff", "out/cities"], cwd: dir.path).status == 2)
    }
}
