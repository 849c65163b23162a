import Foundation
import Testing

@testable import SeedForge

@Suite("Ingest: paginated and compressed dumps")
struct PaginatedSourceTests {
    static let yaml = """
        name: paged
        sources:
          cities:
            kind: json
            path: pages/*.json*
            records: /results
            page-number: /page
            page-count: /total_pages
            id: id
            fields: {id: {type: integer, from: /_id}, name: string}
        outputs:
          - {file: cities.json, collection: cities}
        """

    static func page(_ number: Int, of total: Int, ids: [Int]) -> String {
        let results = ids.map { #"{"_id": \#($0), "name": "c\#($0)"}"# }.joined(separator: ", ")
        return #"{"page": \#(number), "total_pages": \#(total), "results": [\#(results)]}"#
    }

    func run(_ files: [String: [UInt8]]) throws -> RunResult {
        let dir = try TempDir()
        for (name, bytes) in files { try dir.write(name, bytes: bytes) }
        let pipeline = try Harness.load(Self.yaml, in: dir)
        return try Runner.run(
            pipeline, options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
    }

    func sourceError(_ files: [String: [UInt8]]) -> SourceError? {
        Harness.sourceError(Self.yaml, files: files)
    }

    static func gzip(_ text: String) throws -> [UInt8] {
        let dir = try TempDir()
        try dir.write("x", text)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-n", dir.path + "/x"]
        try process.run()
        process.waitUntilExit()
        return [UInt8](try dir.bytes("x.gz"))
    }

    @Test func readsPagesInPageOrderNotNameOrder() throws {
        // Files sort as page-1, page-2, page-10 by name; their metadata says 1, 3, 2.
        let result = try run([
            "pages/page-1.json": Array(Self.page(1, of: 3, ids: [1, 2]).utf8),
            "pages/page-2.json": Array(Self.page(3, of: 3, ids: [5]).utf8),
            "pages/page-10.json": Array(Self.page(2, of: 3, ids: [3, 4]).utf8),
        ])
        #expect(result.records("cities").map { $0["id"] } == [.int(1), .int(2), .int(3), .int(4), .int(5)])
    }

    @Test func pagesOfSeveralRecordsAndAnEmptyPageComeInPageOrder() throws {
        // Name order d, c, b, a holds pages 4, 3 (empty), 1, 2.
        let result = try run([
            "pages/d.json": Array(Self.page(4, of: 4, ids: [7, 8, 9]).utf8),
            "pages/c.json": Array(Self.page(3, of: 4, ids: []).utf8),
            "pages/b.json": Array(Self.page(1, of: 4, ids: [1, 2, 3]).utf8),
            "pages/a.json": Array(Self.page(2, of: 4, ids: [4, 5, 6]).utf8),
        ])
        #expect(result.records("cities").map { $0["id"] } == (1...9).map { .int($0) })
    }

    @Test func gzipPagesAreReadLikePlainOnes() throws {
        let result = try run([
            "pages/page-1.json": Array(Self.page(1, of: 2, ids: [1]).utf8),
            "pages/page-2.json.gz": try Self.gzip(Self.page(2, of: 2, ids: [2, 3])),
        ])
        #expect(result.records("cities").count == 3)
        let origin = result.state.records("cities")[2].origin
        #expect(origin.location.file.hasSuffix("page-2.json.gz"))
        #expect(origin.pointer == "/results/1")
        withExtendedLifetime(result) {}
    }

    @Test func zeroPaddingAfterAGzipMemberIsAccepted() throws {
        let padded = try Self.gzip(Self.page(1, of: 1, ids: [1, 2])) + [UInt8](repeating: 0, count: 512)
        let result = try run(["pages/page-1.json.gz": padded])
        #expect(result.records("cities").count == 2)
    }

    @Test func anAbsurdPageCountFailsAtOnce() throws {
        let start = ContinuousClock.now
        let error = try #require(
            sourceError(["pages/page-1.json": Array(Self.page(1, of: 9_000_000_000_000_000_000, ids: [1]).utf8)]))
        #expect(error.message == "the dump claims 9000000000000000000 pages but 1 page files were found")
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func aCorruptGzipFileFailsTheRun() throws {
        var bytes = try Self.gzip(Self.page(1, of: 1, ids: [1, 2, 3]))
        bytes.removeLast(12)
        let error = try #require(sourceError(["pages/page-1.json.gz": bytes]))
        #expect(error.location.file.hasSuffix("page-1.json.gz"))
        #expect(error.message.contains("gzip"))
    }

    @Test func aMissingPageFailsTheRun() throws {
        let error = try #require(
            sourceError([
                "pages/page-1.json": Array(Self.page(1, of: 3, ids: [1]).utf8),
                "pages/page-3.json": Array(Self.page(3, of: 3, ids: [3]).utf8),
            ]))
        #expect(error.message == "1 of 3 pages missing: page 2")
    }

    @Test func pagesThatDisagreeFailTheRun() throws {
        let count = try #require(
            sourceError([
                "pages/page-1.json": Array(Self.page(1, of: 2, ids: [1]).utf8),
                "pages/page-2.json": Array(Self.page(2, of: 3, ids: [2]).utf8),
            ]))
        #expect(count.message.contains("the page count disagrees"))
        #expect(count.location.file.hasSuffix("page-2.json"))
        #expect(count.location.pointer == "/page")
        let twice = try #require(
            sourceError([
                "pages/page-1.json": Array(Self.page(1, of: 2, ids: [1]).utf8),
                "pages/page-2.json": Array(Self.page(1, of: 2, ids: [2]).utf8),
            ]))
        #expect(twice.message.contains("page 1 appears twice"))
        let missingNumber = try #require(
            sourceError(["pages/page-1.json": Array(#"{"total_pages": 1, "results": []}"#.utf8)]))
        #expect(missingNumber.message == "no page-number at /page in this page file")
        let badNumber = try #require(
            sourceError(["pages/page-1.json": Array(#"{"page": "one", "total_pages": 1, "results": []}"#.utf8)]))
        #expect(badNumber.message.contains("must be a whole number of at least 1"))
    }

    @Test func pageKeysNeedRecords() {
        let errors = Harness.definitionErrors(
            Self.yaml.replacingOccurrences(of: "    records: /results\n", with: ""), files: ["pages/p.json": "[]"])
        #expect(errors.first?.message.contains("'page-number' needs 'records'") == true)
    }

    /// A page large enough to be parsed on several threads, with `before` and `after`
    /// written around its records array.
    static func bigPage(
        before: String = #""page": 1, "total_pages": 1, "#, after: String = "", corruptRecord: Int? = nil
    ) -> String {
        let results = (1...6_000).map { id in
            id == corruptRecord
                ? #"{"_id": \#(id), "name": "c\#(id)" "x": 1}"#
                : #"{"_id": \#(id), "name": "city number \#(id) with a longer name"}"#
        }.joined(separator: ",\n")
        return "{\(before)\"results\": [\n\(results)\n]\(after)}"
    }

    @Test func syntaxErrorsAroundTheRecordsArrayAreFoundBeforeAnyRecordIsTaken() throws {
        // The page parses as expected when it is well formed.
        let good = try run(["pages/page-1.json": Array(Self.bigPage().utf8)])
        #expect(good.records("cities").count == 6_000)
        // After the records array: the array is parsed, the rest of the document checked.
        let after = try #require(
            sourceError(["pages/page-1.json": Array(Self.bigPage(after: #", "next": [1 2]"#).utf8)]))
        #expect(after.rule == "json-syntax")
        #expect(after.message.contains("expected ',' or ']'"), "\(after.message)")
        #expect(after.location.line == 6_002)
        // Before it, where finding the records pointer reads past a missing comma.
        let before = try #require(
            sourceError(["pages/page-1.json": Array(Self.bigPage(before: #""page": 1 "total_pages": 1, "#).utf8)]))
        #expect(before.rule == "json-syntax")
        #expect(before.location.line == 1)
        #expect(before.location.column == 12)
        // Inside and before: the first error in the file is the one reported.
        let both = try #require(
            sourceError([
                "pages/page-1.json": Array(
                    Self.bigPage(before: #""page": 1 "total_pages": 1, "#, corruptRecord: 5_000).utf8)
            ]))
        #expect(both.location.line == 1)
        // Inside only: the record's own line, found by parsing.
        let inside = try #require(sourceError(["pages/page-1.json": Array(Self.bigPage(corruptRecord: 5_000).utf8)]))
        #expect(inside.rule == "json-syntax")
        #expect(inside.location.line == 5_001)
    }
}
