import CSeedForgeSupport
import Foundation
import Testing

@testable import SeedForge

/// Hostile input stays within the limits: a gzip bomb, a string of megabytes, a huge
/// NDJSON line fail with a clear error naming the file and the limit (exit 1, previous
/// dataset kept), and the defaults never touch real data.
@Suite("Ingest: input limits")
struct InputLimitsTests {
    static func pipeline(kind: String = "json", path: String = "items.json", limits: String = "") -> String {
        """
        name: limited
        sources:
          items:
            kind: \(kind)
            path: \(path)
            id: id
            fields: {id: integer, name: string}
        outputs:
          - {file: items.json, collection: items}
        \(limits)
        """
    }

    /// A gzip file of `[{"id": 1, "name": "` + `spaces` MiB of spaces + `"}]`, built from
    /// gzip members (one compressed MiB of spaces, repeated): a few KB on disk.
    static func bomb(mebibytesOfSpaces spaces: Int) throws -> [UInt8] {
        let oneMiB = try PaginatedSourceTests.gzip(String(repeating: " ", count: 1 << 20))
        return try PaginatedSourceTests.gzip(#"[{"id": 1, "name": ""#)
            + Array([[UInt8]](repeating: oneMiB, count: spaces).joined())
            + PaginatedSourceTests.gzip(#""}]"#)
    }

    // MARK: - max-file-bytes

    @Test func aGzipBombFailsTheRunNamingFileAndLimitAndKeepsThePreviousDataset() throws {
        let dir = try TempDir()
        try dir.write("limited.yml", Self.pipeline(path: "items.json.gz", limits: "limits: {max-file-bytes: 1MiB}"))
        try dir.write("items.json.gz", bytes: try PaginatedSourceTests.gzip(#"[{"id": 1, "name": "Hurzuf"}]"#))
        let good = try CLI.run(["run", "limited.yml", "--out", "out"], cwd: dir.path)
        #expect(good.status == 0, "\(good.stderr)")
        let before = try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/limited")
        #expect(before["items.json"] != nil)

        let bomb = try Self.bomb(mebibytesOfSpaces: 4)
        #expect(bomb.count < 64 << 10)
        try dir.write("items.json.gz", bytes: bomb)
        let result = try CLI.run(["run", "limited.yml", "--out", "out"], cwd: dir.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "items.json.gz:1:1: error: decompressed size exceeds limits.max-file-bytes (1 MiB); raise it in the pipeline's 'limits:' if this file is genuine"
            ),
            "\(result.stderr)")
        #expect(try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/limited") == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out").filter {
            $0.hasPrefix(".") && !$0.hasSuffix(".lock")
        }
        #expect(leftovers.isEmpty)
    }

    @Test func aPlainFileOverTheLimitIsRefusedBeforeItIsRead() throws {
        let data = Array(("[" + String(repeating: #"{"id": 1},"#, count: 200) + #"{"id": 2}]"#).utf8)
        #expect(data.count == 2011)
        let error = try #require(
            Harness.sourceError(Self.pipeline(limits: "limits: {max-file-bytes: 1KiB}"), files: ["items.json": data]))
        #expect(error.location.file.hasSuffix("items.json"))
        #expect(
            error.message
                == "size (2011 bytes) exceeds limits.max-file-bytes (1 KiB); raise it in the pipeline's 'limits:' if this file is genuine"
        )
    }

    @Test func decompressionStopsAtTheLimitInsteadOfInflatingEverything() throws {
        // 64 MiB of spaces in 64 KB; with a limit of 1 MiB only 1 MiB + 1 byte is inflated
        // (and never more allocated), whatever the expansion.
        let bomb = try Self.bomb(mebibytesOfSpaces: 64)
        let limit = 1 << 20
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let clock = ContinuousClock.now
        let status = bomb.withUnsafeBufferPointer {
            seedforge_gunzip($0.baseAddress, $0.count, limit, &output, &length, &message, message.count)
        }
        #expect(ContinuousClock.now - clock < .seconds(5))
        #expect(status == -2)
        #expect(output == nil)
        #expect(length == limit + 1)

        // At the limit exactly it succeeds; one byte less fails.
        let exact = try PaginatedSourceTests.gzip(String(repeating: "a", count: 1000))
        let fits = exact.withUnsafeBufferPointer {
            seedforge_gunzip($0.baseAddress, $0.count, 1000, &output, &length, &message, message.count)
        }
        #expect(fits == 0 && length == 1000)
        free(output)
        output = nil
        let over = exact.withUnsafeBufferPointer {
            seedforge_gunzip($0.baseAddress, $0.count, 999, &output, &length, &message, message.count)
        }
        #expect(over == -2 && output == nil)

        let dir = try TempDir()
        let path = try dir.write("bomb.json.gz", bytes: bomb)
        #expect(throws: SourceError.self) { try InputFile.read(path, maxBytes: limit) }
        let small = try dir.write("exact.gz", bytes: exact)
        #expect(
            try InputFile.read(small, maxBytes: 1000).text.array == Array(repeating: UInt8(ascii: "a"), count: 1000))
    }

    // MARK: - max-value-bytes

    @Test func aStringOverMaxValueBytesExits1WithFileLineAndColumn() throws {
        let dir = try TempDir()
        try dir.write("limited.yml", Self.pipeline(limits: "limits: {max-value-bytes: 1KiB}"))
        let long = String(repeating: "x", count: 2000)
        try dir.write("items.json", "[\n  {\"id\": 1, \"name\": \"ok\"},\n  {\"id\": 2, \"name\": \"\(long)\"}\n]\n")
        let result = try CLI.run(["run", "limited.yml", "--out", "out"], cwd: dir.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "items.json:3:21: error: a string of 2000 bytes at /1/name exceeds limits.max-value-bytes (1 KiB); raise it in the pipeline's 'limits:' if this file is genuine"
            ),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out/limited"))
        // At the limit exactly it is read.
        try dir.write("items.json", "[{\"id\": 1, \"name\": \"\(String(repeating: "x", count: 1024))\"}]")
        #expect(try CLI.run(["run", "limited.yml", "--out", "out"], cwd: dir.path).status == 0)
    }

    @Test(arguments: [
        // A number, an escaped string (counted as written), a key, a value outside the
        // records (`records:` documents are checked whole), an unknown field.
        (
            #"[{"id": 1, "name": "a"}, {"id": 1\#(String(repeating: "0", count: 40))}]"#, "",
            "a number of 41 bytes at /1/id", 1, 33
        ),
        (
            #"[{"id": 1, "name": "\#(String(repeating: "\\n", count: 20))"}]"#, "", "a string of 40 bytes at /0/name",
            1, 20
        ),
        (
            #"[{"id": 1, "\#(String(repeating: "k", count: 40))": 2}]"#, "", "a key of 40 bytes in the object at /0", 1,
            12
        ),
        (
            #"{"note": "\#(String(repeating: "n", count: 40))", "results": [{"id": 1}]}"#, "    records: /results",
            "a string of 40 bytes at /note", 1, 10
        ),
        (
            #"[{"id": 1, "other": "\#(String(repeating: "o", count: 40))"}]"#, "", "a string of 40 bytes at /0/other",
            1, 21
        ),
    ])
    func everyKindOfLongValueIsCaught(data: String, extra: String, what: String, line: Int, column: Int) throws {
        let yaml = Self.pipeline(limits: "limits: {max-value-bytes: 32}").replacingOccurrences(
            of: "    id: id\n", with: "    id: id\n\(extra)\n")
        let error = try #require(Harness.sourceError(yaml, files: ["items.json": Array(data.utf8)]))
        #expect(error.message.hasPrefix("\(what) exceeds limits.max-value-bytes (32 bytes)"), "\(error.message)")
        #expect((error.location.line, error.location.column) == (line, column))
        #expect(error.rule == "source")
    }

    @Test func aLongValueInALargeArrayReadOnSeveralThreadsIsFoundWithItsPointer() throws {
        // Over 1 MiB, so the array is parsed in one chunk per thread; the long value is in
        // the second chunk, whose record numbers are only known after the first.
        var items = (0..<50_000).map { #"{"id": \#($0), "name": "city \#($0)"}"# }
        items[40_000] = #"{"id": 40000, "name": "\#(String(repeating: "y", count: 5000))"}"#
        let dir = try TempDir()
        try dir.write("items.json", "[\n" + items.joined(separator: ",\n") + "\n]")
        #expect(try dir.bytes("items.json").count > 1 << 20)
        let pipeline = try Harness.load(Self.pipeline(limits: "limits: {max-value-bytes: 4KiB}"), in: dir)
        do {
            _ = try Runner.run(
                pipeline, options: RunOptions(outputRoot: dir.path + "/out", logger: Harness.silent, threads: 2))
            Issue.record("the run should fail")
        } catch let error as SourceError {
            #expect(error.location.line == 40_002)
            #expect(error.location.column == 23)
            #expect(error.location.pointer == "/40000/name")
        }
    }

    @Test func aLongValueOnAnNDJSONLineFailsTheFileNotJustTheLine() throws {
        // Not a json-syntax rejection of the line: the whole file fails.
        let yaml = Self.pipeline(kind: "ndjson", path: "items.ndjson", limits: "limits: {max-value-bytes: 16}")
        let error = try #require(
            Harness.sourceError(
                yaml,
                files: [
                    "items.ndjson": Array(
                        #"""
                        {"id": 1}
                        {"id": 2, "name": "twenty characters..."}
                        """#.utf8)
                ]))
        #expect((error.location.line, error.location.column) == (2, 19))
        #expect(error.location.pointer == "/name")
        #expect(error.message.hasPrefix("a string of 20 bytes at /name exceeds limits.max-value-bytes (16 bytes)"))
    }

    @Test func anHTMLFieldTextOverMaxValueBytesFailsThePage() throws {
        let yaml = """
            name: pages
            sources:
              items:
                kind: html
                path: "pages/*.html"
                items: li.item
                fields:
                  name: {select: span.name, required: true}
            outputs:
              - {file: items.json, collection: items}
            limits: {max-value-bytes: 64}
            """
        func page(_ name: String) -> [UInt8] {
            Array(
                "<html><body><ul>\n<li class=\"item\"><span class=\"name\">ok</span></li>\n<li class=\"item\"><span class=\"name\">\(name)</span></li></ul></body></html>"
                    .utf8)
        }
        let long = page(String(repeating: "z", count: 100))
        // Several pages are read on several threads; one page alone through `read`.
        for files in [["pages/1.html": page("fine"), "pages/2.html": long], ["pages/2.html": long]] {
            let error = try #require(Harness.sourceError(yaml, files: files))
            #expect(error.location.file.hasSuffix("pages/2.html"))
            #expect(error.location.line == 3)
            #expect(error.location.pointer.hasSuffix("item 2, field name (span.name)"), "\(error.location.pointer)")
            #expect(
                error.message
                    == "the text of field 'name' of item 2 (100 bytes) exceeds limits.max-value-bytes (64 bytes); raise it in the pipeline's 'limits:' if this file is genuine"
            )
        }
    }

    // MARK: - max-record-bytes

    @Test func anNDJSONRecordOverMaxRecordBytesExits1NamingTheLine() throws {
        let dir = try TempDir()
        try dir.write(
            "limited.yml",
            Self.pipeline(kind: "ndjson", path: "items.ndjson", limits: "limits:\n  max-record-bytes: 4KiB"))
        let long = (0..<500).map { #""k\#($0)": 1"# }.joined(separator: ", ")
        try dir.write("items.ndjson", "{\"id\": 1, \"name\": \"ok\"}\n{\"id\": 2, \(long)}\n{\"id\": 3}\n")
        let size = "{\"id\": 2, \(long)}".utf8.count
        #expect(size > 4096)
        let result = try CLI.run(["run", "limited.yml", "--out", "out"], cwd: dir.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "items.ndjson:2:1: error: a record of \(size) bytes on this line exceeds limits.max-record-bytes (4 KiB); raise it in the pipeline's 'limits:' if this file is genuine"
            ),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out/limited"))
    }

    @Test func aJSONRecordOverMaxRecordBytesNamesItsPointer() throws {
        let long = (0..<50).map { #""k\#($0)": 1"# }.joined(separator: ", ")
        let error = try #require(
            Harness.sourceError(
                Self.pipeline(limits: "limits: {max-record-bytes: 256}"),
                files: ["items.json": Array("[{\"id\": 1},\n {\"id\": 2, \(long)}]".utf8)]))
        #expect(error.location.line == 2)
        #expect(error.location.column == 2)
        #expect(error.location.pointer == "/1")
        #expect(error.message.hasPrefix("a record of "))
        #expect(error.message.contains(" bytes at /1 exceeds limits.max-record-bytes (256 bytes)"), "\(error.message)")
    }

    @Test func ndjsonLinesOverALimitAreFoundAnywhereInALongFile() throws {
        let yaml = Self.pipeline(kind: "ndjson", path: "items.ndjson", limits: "limits: {max-record-bytes: 256}")
        var lines = (0..<2000).map { #"{"id": \#($0), "name": "item \#($0)"}"# }
        #expect(Harness.sourceError(yaml, files: ["items.ndjson": Array(lines.joined(separator: "\n").utf8)]) == nil)
        // Exactly at the limit (trailing white space and CR not counted) is allowed.
        lines[700] = #"{"id": 700, "name": "\#(String(repeating: "a", count: 256 - 23))"}"# + " \r"
        #expect(lines[700].utf8.count == 258)
        #expect(Harness.sourceError(yaml, files: ["items.ndjson": Array(lines.joined(separator: "\n").utf8)]) == nil)
        lines[1500] = #"{"id": 1500, "name": "\#(String(repeating: "b", count: 300))"}"#
        let error = try #require(
            Harness.sourceError(yaml, files: ["items.ndjson": Array(lines.joined(separator: "\n").utf8)]))
        #expect((error.location.line, error.location.column) == (1501, 1))
        #expect(
            error.message.hasPrefix("a record of 324 bytes on this line exceeds limits.max-record-bytes (256 bytes)"),
            "\(error.message)")
    }

    @Test func validateReportsAFileOverALimitAndChecksTheOtherFiles() throws {
        let dir = try TempDir()
        try dir.write(
            "limited.yml",
            Self.pipeline(kind: "ndjson", path: "items-*.ndjson", limits: "limits: {max-record-bytes: 64}"))
        try dir.write(
            "items-1.ndjson",
            "{\"id\": 1, \"name\": \"a\"}\n{\"id\": 2, \"name\": \"\(String(repeating: "b", count: 80))\"}\n")
        try dir.write("items-2.ndjson", "{\"id\": 3, \"name\": \"c\"}\n{\"id\": \"four\"}\n")
        let result = try CLI.run(["validate", "limited.yml"], cwd: dir.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("items-1.ndjson"), "\(result.stdout)")
        #expect(
            result.stdout.contains(
                "2:1      error    a record of 101 bytes on this line exceeds limits.max-record-bytes (64 bytes)"),
            "\(result.stdout)")
        #expect(result.stdout.contains("[source]"))
        // The other file is still checked: its bad id is reported.
        #expect(result.stdout.contains("items-2.ndjson"))
        #expect(result.stdout.contains("[type]"))
    }

    // MARK: - Definitions

    /// `seedforge run` on the test pipeline with `limits` (a folder holding `items.json`).
    static func runDefinition(limits: String) throws -> (dir: TempDir, result: CLI.Result) {
        let dir = try TempDir()
        try dir.write("items.json", "[]")
        try dir.write("limited.yml", pipeline(limits: limits))
        return (dir, try CLI.run(["run", "limited.yml", "--out", "out"], cwd: dir.path))
    }

    @Test func aMisspelledLimitKeyIsADefinitionErrorWithASuggestion() throws {
        let (dir, result) = try Self.runDefinition(limits: "limits: {max-file-byte: 1MiB}")
        #expect(result.status == 2)
        #expect(
            result.stderr.contains(
                "limited.yml:10:10: error: unknown key 'max-file-byte' in 'limits'; did you mean 'max-file-bytes'?"),
            "\(result.stderr)")
        let lint = try CLI.run(["lint", "limited.yml"], cwd: dir.path)
        #expect(lint.status == 2)
        #expect(lint.stderr.contains("did you mean 'max-file-bytes'?"))
    }

    @Test(arguments: [
        (
            "max-value-bytes: lots", "11:20",
            "'max-value-bytes' in 'limits' must be a size such as 16MiB, 2GiB or 1000000 (bytes), found 'lots'"
        ),
        (
            "max-record-bytes: 1.5GiB", "11:21",
            "'max-record-bytes' in 'limits' must be a size such as 16MiB, 2GiB or 1000000 (bytes), found '1.5GiB'"
        ),
        ("max-file-bytes: 0", "11:19", "'max-file-bytes' in 'limits' must be at least 1 byte"),
        (
            "max-record-bytes: 2GiB", "11:21",
            "'max-record-bytes' in 'limits' is at most 1GiB (one record's values are held in memory whole)"
        ),
        (
            "max-file-bytes: [1]", "11:19",
            "'max-file-bytes' in 'limits' must be a size such as 16MiB, 2GiB or 1000000 (bytes), found a list"
        ),
    ])
    func aBadSizeIsADefinitionErrorAtItsLineAndColumn(entry: String, place: String, message: String) throws {
        let (_, result) = try Self.runDefinition(limits: "limits:\n  \(entry)")
        #expect(result.status == 2)
        #expect(result.stderr.contains("limited.yml:\(place): error: \(message)"), "\(result.stderr)")
    }

    @Test func limitsAreLoadedAndOptional() throws {
        let pipeline = try Harness.load(
            Self.pipeline(
                limits: "limits: {max-file-bytes: 2GiB, max-value-bytes: 512 KiB, max-record-bytes: 1000000}"),
            files: ["items.json": "[]"])
        #expect(
            pipeline.limits == InputLimits(maxFileBytes: 2 << 30, maxValueBytes: 512 << 10, maxRecordBytes: 1_000_000))
        let partial = try Harness.load(
            Self.pipeline(limits: "limits: {max-value-bytes: 1MiB}"), files: ["items.json": "[]"])
        #expect(partial.limits == InputLimits(maxValueBytes: 1 << 20))
        #expect(try Harness.load(Self.pipeline(), files: ["items.json": "[]"]).limits == .defaults)
    }

    @Test(arguments: [
        ("512MiB", 512 << 20), ("2GiB", 2 << 30), ("64KiB", 64 << 10), ("1000000", 1_000_000), ("2 gib", 2 << 30),
        ("1TiB", 1 << 40), ("5MB", 5_000_000), ("1kb", 1000), ("100B", 100), (" 7 ", 7),
    ])
    func sizesParse(text: String, bytes: Int) {
        #expect(ByteSize.parse(text) == bytes)
    }

    @Test func badSizesDoNotParse() {
        for text in [
            "", "lots", "1.5GiB", "-1", "MiB", "1 MiBs", "1e6", "99999999999999999999", "9999999999TiB", "１MiB",
        ] {
            #expect(ByteSize.parse(text) == nil, "\(text)")
        }
        #expect(ByteSize.format(1 << 30) == "1 GiB")
        #expect(ByteSize.format(16 << 20) == "16 MiB")
        #expect(ByteSize.format(1536) == "1536 bytes")
        #expect(ByteSize.format(3 << 10) == "3 KiB")
        #expect(ByteSize.format(1) == "1 byte")
    }

    // MARK: - Defaults

    @Test func theDefaultFileLimitRefusesTheIssuesTwoGiBExpansion() {
        // The issue's file: 2 MB of gzip expanding to 2 GiB of spaces inside one string.
        #expect(InputLimits.defaults.maxFileBytes == 1 << 30)
        #expect(InputLimits.defaults.maxFileBytes < 2 << 30)
        #expect(InputLimits.defaults.maxValueBytes == 16 << 20)
        #expect(InputLimits.defaults.maxRecordBytes == 64 << 20)
        #expect(InputLimits.defaults.maxValueBytes < InputLimits.defaults.maxRecordBytes)
        #expect(InputLimits.defaults.maxRecordBytes < InputLimits.defaults.maxFileBytes)
    }

    @Test func theShippedPipelinesRunUnchangedUnderTheDefaults() throws {
        let folder = CLI.repoRoot.appendingPathComponent("pipelines")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".yml") && !$0.hasSuffix(".test.yml")
        }.sorted()
        #expect(files.count >= 5)
        for file in files {
            let pipeline = try Loader.load(path: folder.appendingPathComponent(file).path)
            #expect(pipeline.limits == .defaults, "\(file)")
            let result = try Runner.run(pipeline, options: RunOptions(writeOutputs: false, logger: Harness.silent))
            #expect(result.state.sourceErrors.isEmpty, "\(file): \(result.state.sourceErrors.map(\.error.description))")
        }
    }
}
