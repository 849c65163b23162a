import Foundation
import Testing

@testable import SeedForge

@Suite("End to end: determinism and validate")
struct DeterminismAndValidateTests {
    @Test func datasetsDoNotDependOnTheWorkingFolder() throws {
        let dir = try HoneyShopsEndToEndTests.workspace()
        #expect(try CLI.run(["run", "pipelines/honey-shops.yml", "--out", dir.path + "/a"], cwd: dir.path).status == 0)
        let elsewhere = try TempDir()
        #expect(
            try CLI.run(
                ["run", dir.path + "/pipelines/honey-shops.yml", "--out", dir.path + "/b"], cwd: elsewhere.path
            ).status == 0)
        for file in ["rejects.ndjson", "duplicates.ndjson", "shops.json", "shops.csv", "reviews.json"] {
            #expect(try dir.bytes("a/honey-shops/\(file)") == dir.bytes("b/honey-shops/\(file)"), "\(file) differs")
        }
        let rejects = try dir.read("a/honey-shops/rejects.ndjson")
        #expect(rejects.contains("\"file\":\"../Fixtures/honey-shops/shops.json\""))
        func manifest(_ name: String) throws -> NSDictionary {
            var object = try #require(jsonObject(dir.bytes("\(name)/honey-shops/manifest.json")) as? [String: Any])
            object.removeValue(forKey: "run")
            return object as NSDictionary
        }
        #expect(try manifest("a") == manifest("b"))
    }

    @Test func suggestionsInRejectsAreTheSameEveryRun() throws {
        let dir = try TempDir()
        try dir.write(
            "p.yml",
            """
            name: tie
            sources:
              items: {kind: json, path: d.json, unknown-fields: reject, fields: {ab: any, ac: any, ad: any, ae: any}}
            outputs:
              - {file: items.json, collection: items}
            thresholds: {max-reject-fraction: 1}
            """)
        try dir.write("d.json", #"[{"a": 1}]"#)
        var seen: Set<Data> = []
        for run in 0..<4 {
            #expect(try CLI.run(["run", "p.yml", "--out", "o\(run)"], cwd: dir.path).status == 0)
            seen.insert(try dir.bytes("o\(run)/tie/rejects.ndjson"))
        }
        #expect(seen.count == 1)
    }

    @Test func twoPipelinesWithOneDatasetNameAreRefused() throws {
        let dir = try TempDir()
        try dir.write("d.json", "[]")
        let yaml =
            "name: same\nsources:\n  items: {kind: json, path: d.json, fields: {id: integer}}\noutputs:\n  - {file: i.json, collection: items}\n"
        try dir.write("a.yml", yaml)
        try dir.write("b.yml", yaml)
        let result = try CLI.run(["run", "a.yml", "b.yml"], cwd: dir.path)
        #expect(result.status == 2)
        #expect(result.stderr.contains("b.yml:1:1: error: dataset name 'same' is also used by a.yml"))
    }

    @Test func validateReportsEveryFindingAndWritesNothing() throws {
        let dir = try HoneyShopsEndToEndTests.workspace()
        let result = try CLI.run(["validate", "pipelines/honey-shops.yml"], cwd: dir.path)
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.last == "18 errors, 0 warnings in 2 files")
        #expect(lines.contains("Fixtures/honey-shops/shops.json"))
        #expect(
            lines.contains(
                "  69:15    error    rating 7 is above the maximum 5 (seed ratings use the 0-5 scale and are never rescaled) [range] (id \"golden-comb\", at /6/rating, field rating, value 7)"
            ))
        #expect(
            lines.contains(
                "  20:80    error    line is not valid JSON: unterminated string (truncated file?) [json-syntax]"))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out"))

        let clean = try TempDir()
        try clean.write(
            "p.yml",
            "name: ok\nsources:\n  items: {kind: json, path: d.json, fields: {id: integer}}\noutputs:\n  - {file: i.json, collection: items}\n"
        )
        try clean.write("d.json", #"[{"id": 1}]"#)
        let ok = try CLI.run(["validate", "p.yml"], cwd: clean.path)
        #expect(ok.status == 0)
        #expect(ok.stdout == "0 errors, 0 warnings in 0 files\n")
    }
}
