import Foundation
import Testing

@testable import SeedForge

/// The command line as users and CI see it: exit codes, messages, log formats.
@Suite("End to end: command line")
struct CLITests {
    /// The loader tests' valid pipeline, named `mini`, reading `shops.json`.
    static let pipeline = LoaderTests.valid
        .replacingOccurrences(of: "name: demo", with: "name: mini")
        .replacingOccurrences(of: "path: data.json", with: "path: shops.json")

    func workspace(_ shops: [UInt8]) throws -> TempDir {
        let dir = try TempDir()
        try dir.write("mini.yml", Self.pipeline)
        try dir.write("shops.json", bytes: shops)
        return dir
    }

    func run(_ dir: TempDir, _ arguments: [String] = []) throws -> CLI.Result {
        try CLI.run(["run", "mini.yml", "--out", "out"] + arguments, cwd: dir.path)
    }

    @Test(arguments: [
        ("[{\"id\": \"a\", \"rating\": 4}", "shops.json:1:26: error: unexpected end of input inside an array"),
        ("[\n  {\"id\": \"a\"},\n]", "shops.json:3:1: error: trailing comma before ']'"),
        ("", "shops.json:1:1: error: the file is empty; expected a JSON array of records"),
        ("{\"shops\": []}", "shops.json:1:1: error: expected a JSON array of records, found an object"),
    ])
    func malformedInputsExit1WithFileLineAndColumn(content: String, message: String) throws {
        let dir = try workspace(Array(content.utf8))
        let result = try run(dir)
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out/mini"))
    }

    @Test func invalidUTF8Exits1AtTheByte() throws {
        let dir = try workspace(Array("[{\"id\": \"a\", \"name\": \"M".utf8) + [0xFF, 0xFE] + Array("\"}]".utf8))
        let result = try run(dir)
        #expect(result.status == 1)
        #expect(result.stderr.contains("shops.json:1:24: error: invalid UTF-8 byte 0xFF"), "\(result.stderr)")
    }

    @Test func missingInputIsADefinitionErrorExit2() throws {
        let dir = try TempDir()
        try dir.write("mini.yml", Self.pipeline)
        let result = try run(dir)
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("mini.yml:5:11: error: input file 'shops.json' does not exist"), "\(result.stderr)")
    }

    @Test func lintChecksWithoutReadingData() throws {
        let dir = try workspace(Array("not json at all".utf8))
        let ok = try CLI.run(["lint", "mini.yml"], cwd: dir.path)
        #expect(ok.status == 0)
        #expect(ok.stdout.contains("mini.yml: ok (mini: 1 sources, 1 input files, 1 steps, 1 outputs)"))
        try dir.write("bad.yml", Self.pipeline.replacingOccurrences(of: "    max: 5", with: "    maxx: 5"))
        let bad = try CLI.run(["lint", "bad.yml"], cwd: dir.path)
        #expect(bad.status == 2)
        #expect(
            bad.stderr.contains(
                "bad.yml:16:5: error: unknown key 'maxx' in step 1 (validate: range); did you mean 'max'?"),
            "\(bad.stderr)")
    }

    /// `lint` loads the arguments exactly as `run` does: a file named twice (or as
    /// `./mini.yml`) once, test files skipped, two pipelines writing one dataset refused.
    @Test func lintAndRunLoadRepeatedAndCollidingPipelinesAlike() throws {
        let dir = try workspace(Array("not json at all".utf8))
        let twice = try CLI.run(["lint", "mini.yml", "./mini.yml", "mini.test.yml"], cwd: dir.path)
        #expect(twice.status == 0, "\(twice.stderr)")
        #expect(twice.stdout.components(separatedBy: ": ok (").count == 2, "\(twice.stdout)")
        try dir.write("other.yml", Self.pipeline)
        let message =
            "other.yml:1:1: error: dataset name 'mini' is also used by mini.yml; each run writes one folder per name"
        for command in ["lint", "run"] {
            let colliding = try CLI.run([command, "mini.yml", "other.yml"], cwd: dir.path)
            #expect(colliding.status == 2, "\(command)")
            #expect(colliding.stderr.contains(message), "\(command): \(colliding.stderr)")
        }
    }

    @Test func usageErrorsExit2() throws {
        #expect(try CLI.run(["run"]).status == 2)
        #expect(try CLI.run(["run", "x.yml", "--no-such-flag"]).status == 2)
        #expect(try CLI.run(["frobnicate"]).status == 2)
        let help = try CLI.run(["run", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--lock-timeout"))
    }

    @Test func unwritableOutputExits3() throws {
        let dir = try workspace(Array(#"[{"id": "a", "rating": 4}]"#.utf8))
        try dir.write("blocker", "a file where a folder should be")
        let result = try CLI.run(["run", "mini.yml", "--out", "blocker/out"], cwd: dir.path)
        #expect(result.status == 3, "\(result.stderr)")
    }

    @Test func jsonLogsAreOneObjectPerLineAndQuietIsQuiet() throws {
        let dir = try workspace(Array(#"[{"id": "a", "rating": 4}, {"id": "b", "rating": 7}]"#.utf8))
        let json = try run(dir, ["--log-format", "json"])
        #expect(json.status == 0)
        let events = try json.stderr.split(separator: "\n").map {
            try #require(jsonObject(Data($0.utf8)) as? [String: Any])
        }
        #expect(events.count >= 3)
        #expect(events.allSatisfy { $0["level"] != nil && $0["message"] != nil && $0["time"] != nil })
        #expect(
            events.contains {
                ($0["message"] as? String)?.contains("mini: wrote 1 shops") == true
                    && $0["dataset"] as? String == "mini"
            })
        let quiet = try run(dir, ["--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        let broken = try workspace(Array("[".utf8))
        let jsonError = try run(broken, ["--log-format", "json"])
        #expect(jsonError.status == 1)
        let error = try #require(
            jsonError.stderr.split(separator: "\n").last.map { try jsonObject(Data($0.utf8)) as? [String: Any] } ?? nil)
        #expect(error["level"] as? String == "error")
        #expect(error["file"] as? String == "shops.json")
        #expect(error["line"] as? String == "1")
    }

    @Test func severalPipelinesRunIndependentlyAndTheWorstCodeWins() throws {
        let dir = try workspace(Array(#"[{"id": "a", "rating": 4}]"#.utf8))
        try dir.write(
            "broken.yml",
            Self.pipeline.replacingOccurrences(of: "name: mini", with: "name: broken").replacingOccurrences(
                of: "shops.json\n    id", with: "broken.json\n    id"))
        try dir.write("broken.json", "[")
        let result = try CLI.run(["run", "broken.yml", "mini.yml", "--out", "out"], cwd: dir.path)
        #expect(result.status == 1)
        #expect(FileManager.default.fileExists(atPath: dir.path + "/out/mini/shops.json"))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out/broken"))
    }

    @Test func kindsDocumentsEveryKind() throws {
        let all = try CLI.run(["kinds"])
        #expect(all.status == 0)
        for spec in Registry.allSpecs {
            #expect(
                all.stdout.contains("\(spec.stage.rawValue): \(spec.name)\n  \(spec.summary)\n"),
                "\(spec.name) missing from kinds")
            let one = try CLI.run(["kinds", spec.name])
            #expect(one.status == 0)
            for key in spec.keys {
                #expect(
                    one.stdout.contains("    \(key.name)\(key.required ? " (required)" : ""): \(key.summary)\n"),
                    "kinds \(spec.name) lacks \(key.name)")
            }
            #expect(
                one.stdout.contains("  example:\n    " + spec.example.replacingOccurrences(of: "\n", with: "\n    ")),
                "kinds \(spec.name) lacks its example")
        }
        #expect(try CLI.run(["kinds", "rnage"]).stderr.contains("did you mean 'range'?"))
    }

    /// `kinds --markdown` prints the README's kinds reference (what `make docs` writes),
    /// and with a name that kind's entry; `kinds NAME` shows a kind's details too.
    @Test func kindsPrintsTheReferenceAsMarkdown() throws {
        let all = try CLI.run(["kinds", "--markdown"])
        #expect(all.status == 0 && all.stdout == KindsReference.markdown())
        let csv = try CLI.run(["kinds", "--markdown", "csv"])
        let entries = Registry.allSpecs.filter { $0.name == "csv" }.map(KindsReference.entry)
        #expect(csv.status == 0 && csv.stdout == entries.joined() && entries.count == 2)
        let readme = try CLI.run([
            "kinds", "--markdown", "--readme", CLI.repoRoot.appendingPathComponent("README.md").path,
        ])
        #expect(readme.status == 0 && readme.stdout == DocumentationTests.readme, "make docs would change README.md")
        #expect(try CLI.run(["kinds", "--readme", "README.md"]).status == 2)
        let order = try CLI.run(["kinds", "order"])
        #expect(order.stdout.contains("  Such as a trip's `[startDate, endDate]`."), "\(order.stdout)")
    }
}
