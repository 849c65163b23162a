import Foundation
import Testing

@testable import SeedForge

@Suite("Ingest: JSON sources")
struct JSONSourceTests {
    static func pipeline(
        kind: String = "json", path: String = "data.json", extra: String = "", fields: String? = nil
    ) -> String {
        """
        name: ingest
        sources:
          items:
            kind: \(kind)
            path: \(path)
            id: id
        \(extra)
            fields:
        \(fields ?? "      id: integer\n      name: string\n      lat: {type: number, from: /coord/lat}")
        outputs:
          - file: items.json
            collection: items
        thresholds:
          max-reject-fraction: 1
        """
    }

    /// A large file's syntax is checked in pieces on several threads: they end where one
    /// pass ends; a guessed boundary inside a string that looks like one (`},{`) never
    /// gives a wrong end, only none (one pass then checks); an error gives none, and the
    /// check then throws what one pass throws.
    /// Under a small memory limit the syntax check holds as little of the input as the parse
    /// does (four parse windows), and never more than 64 MiB under a large one.
    @Test func theCheckWindowFollowsTheMemoryLimit() {
        #expect(JSONSource.checkWindow(parseWindow: 1 << 20) == 4 << 20)  // limits up to 32 MiB
        #expect(JSONSource.checkWindow(parseWindow: 2 << 20) == 8 << 20)  // 64 MiB
        #expect(JSONSource.checkWindow(parseWindow: 16 << 20) == 64 << 20)  // 512 MiB
        #expect(JSONSource.checkWindow(parseWindow: 64 << 20) == 64 << 20)  // 2 GiB
    }

    @Test func aLargeArrayIsCheckedInPiecesOnSeveralThreads() throws {
        func check(_ dump: String, window: Int) throws -> (pieces: Int?, whole: Result<Int, Error>) {
            let bytes = Array(dump.utf8)
            let text = SourceText(displayPath: "cities.json", bytes: bytes)
            let start = bytes.firstIndex(of: UInt8(ascii: "["))!
            return bytes.withUnsafeBufferPointer { buffer in
                let pieces = JSONSource.checkArrayInPieces(
                    buffer, text, arrayStart: start, limits: .defaults, threads: Threads(3), window: window)
                let whole = Result {
                    try JSONSource.checkArray(buffer, text, arrayStart: start, limits: .defaults, threads: Threads(3))
                        .end
                }
                return (pieces, whole)
            }
        }
        let tricky = ThreadsTests.dump()
        let clean = tricky.replacingOccurrences(of: "},{ name", with: "name")
        for window in [4_096, 10_000, 65_536, 64 << 20] {
            let result = try check(clean, window: window)
            #expect(result.pieces != nil)
            let end = try result.whole.get()
            #expect(result.pieces == end)
            let fooled = try check(tricky, window: window)
            let fooledEnd = try fooled.whole.get()
            #expect(fooled.pieces == nil || fooled.pieces == fooledEnd)
        }
        // A missing comma near the end: no piece ends, and the error is the one pass's.
        let cut = clean.range(of: "},\n", options: .backwards)!
        let broken = clean.replacingCharacters(in: cut, with: "}\n")
        let result = try check(broken, window: 4_096)
        #expect(result.pieces == nil)
        #expect(throws: JSONSyntaxError.self) { try result.whole.get() }
    }

    func sourceError(_ yaml: String, _ data: String) -> SourceError? {
        sourceError(yaml, bytes: Array(data.utf8))
    }

    func sourceError(_ yaml: String, bytes: [UInt8]) -> SourceError? {
        Harness.sourceError(yaml, files: ["data.json": bytes])
    }

    @Test func mapsFieldsFromPointersAndChecksTypes() throws {
        let result = try Harness.run(
            Self.pipeline(),
            files: [
                "data.json": """
                [{"id": 1, "name": "Hurzuf", "coord": {"lon": 34.28, "lat": 44.55}},
                 {"id": 136256.0, "name": "Float id", "coord": {"lat": 28}},
                 {"id": "7", "name": 5, "coord": {"lat": "north"}},
                 {"id": 136256.5, "name": "Fractional id"},
                 "not an object"]
                """
            ])
        #expect(result.records("items").map { $0["id"] } == [.int(1), .int(136256)])
        #expect(result.records("items").map { $0["lat"] } == [.double(44.55), .int(28)])
        let rejects = result.rejects("items")
        #expect(rejects.map(\.findings.count) == [3, 1, 1])
        #expect(rejects[0].findings.map(\.field) == ["id", "name", "lat"])
        #expect(rejects[0].findings[2].location?.pointer == "/2/coord/lat")
        #expect(rejects[0].findings[2].location?.line == 3)
        #expect(rejects[1].findings[0].message == "field 'id' must be an integer, found number 136256.5")
        #expect(rejects[2].findings[0].rule == "not-an-object")
        #expect(rejects[2].findings[0].location?.line == 5)
    }

    @Test func readsRecordsInsideADocumentByPointer() throws {
        let yaml = Self.pipeline(extra: "    records: /results")
        let result = try Harness.run(yaml, files: ["data.json": #"{"page": 1, "results": [{"id": 1}, {"id": 2}]}"#])
        #expect(result.records("items").count == 2)
        #expect(result.state.records("items")[1].origin.pointer == "/results/1")
    }

    @Test(arguments: [
        ("[{\"id\": 1}, {\"id\": 2}", 1, 22, "unexpected end of input inside an array"),
        ("[{\"id\": 1},\n {\"id\": 2},\n]", 3, 1, "trailing comma before ']'"),
        ("", 1, 1, "the file is empty"),
        ("  \n ", 2, 2, "the file is empty"),
        (
            "{\"id\": 1}", 1, 1,
            "expected a JSON array of records, found an object; if the records are inside it, set 'records'"
        ),
        ("[{\"id\": 1}] [", 1, 13, "unexpected data after the end of the JSON document"),
    ])
    func malformedJSONFailsTheSourceWithFileLineAndColumn(data: String, line: Int, column: Int, message: String) throws
    {
        let error = try #require(sourceError(Self.pipeline(), data))
        #expect(error.location.file.hasSuffix("data.json"))
        #expect(error.location.line == line)
        #expect(error.location.column == column)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test func invalidUTF8FailsAJSONSourceAtTheBadByte() throws {
        var bytes = Array("[\n  {\"id\": 1, \"name\": \"Caf".utf8)
        bytes += [0xE9]  // Latin-1 é in a UTF-8 file
        bytes += Array("\"}\n]".utf8)
        let error = try #require(sourceError(Self.pipeline(), bytes: bytes))
        #expect(error.location.line == 2)
        #expect(error.location.column == 25)
        #expect(error.message.contains("invalid UTF-8"))
    }

    @Test func unknownFieldsCanBeRejected() throws {
        let yaml = Self.pipeline(extra: "    unknown-fields: reject")
        let result = try Harness.run(yaml, files: ["data.json": #"[{"id": 1, "name": "a", "raitng": 4}]"#])
        let finding = try #require(result.rejects("items").first?.findings.first)
        #expect(finding.rule == "unknown-field")
        #expect(finding.field == "raitng")
        #expect(finding.location?.column == 35)
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        let result = try Harness.run(Self.pipeline(), files: ["data.json": "\u{FEFF}[{\"id\": 1}]"])
        #expect(result.records("items").count == 1)
    }

    @Test func numericLookingKeysResolveInObjects() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nlat: {type: number, from: /coordinates/0}",
            steps: "[]", records: #"[{"id": 1, "coordinates": {"0": 5}}]"#)
        #expect(result.records("items")[0]["lat"] == .int(5))
    }

    @Test func duplicateKeyFindingsPointAtTheNestedKeyAndKeepTheID() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nmeta: object", steps: "[]",
            records: #"[{"id": 2, "meta": {"a/b": {"x": 1, "x": 2}}}]"#)
        let rejection = try #require(result.rejects("items").first)
        #expect(rejection.id == .int(2))
        #expect(rejection.findings[0].rule == "duplicate-key")
        #expect(rejection.findings[0].location?.pointer == "/0/meta/a~1b/x")
        #expect(rejection.findings[0].location?.column == 37)
    }
}
