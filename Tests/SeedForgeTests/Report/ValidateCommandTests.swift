import Foundation
import Testing

@testable import SeedForge

/// `seedforge validate` reports, pinned by golden files on a fixture with known defects
/// (Fixtures/validation). Set SEEDFORGE_UPDATE_GOLDEN=1 to rewrite the golden files after
/// an intended change, then review the diff.
@Suite("Report: the validate command")
struct ValidateCommandTests {
    static let pipeline = "Fixtures/validation/validation.yml"
    static let golden = CLI.repoRoot.appendingPathComponent("Tests/SeedForgeTests/Report/Golden")

    func validate(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(["validate", Self.pipeline] + arguments)
    }

    @Test(arguments: ["text", "json", "github", "junit", "html"])
    func eachFormatMatchesItsGoldenFile(format: String) throws {
        let result = try validate(["--format", format])
        #expect(result.status == 1, "\(result.stderr)")
        let file = Self.golden.appendingPathComponent("validation.\(format)")
        if ProcessInfo.processInfo.environment["SEEDFORGE_UPDATE_GOLDEN"] == "1" {
            try Data(result.stdout.utf8).write(to: file)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(result.stdout == expected, "\(format) report differs from \(file.path)")
    }

    @Test func positionsAreExactInPrettyMinifiedAndCRLFFiles() throws {
        let report = try #require(jsonObject(Data(validate(["--format", "json"]).stdout.utf8)) as? [String: Any])
        let findings = try #require(report["findings"] as? [[String: Any]])
        func place(_ rule: String, _ file: String) -> String? {
            findings.first { $0["rule"] as? String == rule && ($0["file"] as? String)?.hasSuffix(file) == true }
                .map { "\($0["line"]!):\($0["column"]!) \($0["pointer"]!)" }
        }
        #expect(place("type", "shops-1.json") == "12:15 /1/rating")  // wrong type
        #expect(place("required", "shops-1.json") == "16:3 /2/name")  // missing field (at its record)
        #expect(place("url", "shops-1.json") == "27:16 /3/website")  // bad URL
        #expect(place("range", "shops-2.json") == "1:197 /1/rating")  // out of range, minified, after "Ápiculture Éclair" and "🐝"
        #expect(place("unique", "shops-2.json") == "1:269 /2/id")  // duplicate id
        #expect(place("range", "shops-3.json") == "2:89 /0/latitude")  // CRLF file, after "Miód Łódź"
        #expect(place("json-syntax", "shops-4.json") == "3:27 ")  // truncated file
        let summary = try #require(report["summary"] as? [String: Int])
        #expect(summary == ["errors": 7, "warnings": 1, "files": 4, "listed": 8, "thresholdFailures": 0])
    }

    @Test func maxFindingsCapsTheListingNeverTheExitCode() throws {
        let result = try validate(["--max-findings", "2"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("... 6 more findings not listed (--max-findings 2)"))
        #expect(result.stdout.hasSuffix("7 errors, 1 warning in 4 files\n"))
        let github = try validate(["--format", "github", "--max-findings", "0"])
        #expect(
            github.stdout
                == "::notice title=seedforge::8 more findings not listed (--max-findings)\n7 errors, 1 warning in 4 files\n"
        )
        #expect(github.status == 1)
    }

    @Test func warningsFailOnlyWithStrict() throws {
        let dir = try TempDir()
        try dir.write(
            "p.yml",
            """
            name: warn
            sources:
              items: {kind: json, path: d.json, fields: {name: string}}
            steps:
              - {validate: length, collection: items, field: name, max: 3, severity: warning}
            outputs:
              - {file: i.json, collection: items}
            """)
        try dir.write("d.json", #"[{"name": "long name"}]"#)
        let lenient = try CLI.run(["validate", "p.yml"], cwd: dir.path)
        #expect(lenient.status == 0)
        #expect(lenient.stdout.hasSuffix("0 errors, 1 warning in 1 file\n"))
        #expect(try CLI.run(["validate", "p.yml", "--strict"], cwd: dir.path).status == 1)
    }

    @Test func outputGoesToAFileWhenAsked() throws {
        let dir = try TempDir()
        let result = try validate(["--format", "junit", "--output", dir.path + "/report.xml"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(try dir.read("report.xml").hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"))
    }

    @Test func definitionErrorsExit2AndUnknownFormatsAreUsageErrors() throws {
        let dir = try TempDir()
        try dir.write("bad.yml", "name: x\nsources: {}\noutputs: []\nstepz: []\n")
        #expect(try CLI.run(["validate", "bad.yml"], cwd: dir.path).status == 2)
        #expect(try validate(["--format", "xml"]).status == 2)
    }

    @Test func theReadmeCIGlobWorksWithTestFilesBesideThePipelines() throws {
        let result = try CLI.run([
            "validate", "pipelines/cities.yml", "pipelines/cities.test.yml", "pipelines/honey-shops.yml",
            "pipelines/honey-shops.test.yml", "pipelines/cities.yml", "--format", "github",
        ])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("26 errors, 0 warnings in 4 files\n"))
    }

    @Test func aBadPageNumberIsAFindingNotAnInternalError() throws {
        let dir = try TempDir()
        try dir.write(
            "p.yml",
            """
            name: paged
            sources:
              cities: {kind: json, path: "page-*.json", records: /results, page-number: /page, page-count: /total_pages, fields: {id: {type: integer, from: /_id}}}
            outputs:
              - {file: c.json, collection: cities}
            """)
        try dir.write("page-1.json", #"{"page": 1, "total_pages": 2, "results": [{"_id": 1}]}"#)
        try dir.write("page-2.json", #"{"page": 0, "total_pages": 2, "results": [{"_id": 2}]}"#)
        let result = try CLI.run(["validate", "p.yml", "--format", "json"], cwd: dir.path)
        #expect(result.status == 1, "\(result.stderr)")
        let report = try #require(jsonObject(Data(result.stdout.utf8)) as? [String: Any])
        let findings = try #require(report["findings"] as? [[String: Any]])
        // Page 2 reports its own number; the gap it leaves is not reported again as a
        // missing page (a page that cannot be read would always count as missing).
        #expect(
            findings.map { "\($0["rule"]!) \($0["file"]!) \($0["pointer"]!) \($0["message"]!)" } == [
                "source page-2.json /page the page-number at /page must be a whole number of at least 1, found 0"
            ])
    }

    @Test func thresholdsOfAWarningRuleCountItsWarnings() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nrating: number",
            steps:
                "- validate: range\n  collection: items\n  field: rating\n  max: 5\n  severity: warning\n  max-rejects: 0",
            records: #"[{"id":1,"rating":9}]"#)
        #expect(
            result.thresholdFailures == ["validate: range warned about 1 items records, more than its max-rejects 0"])
    }
}
