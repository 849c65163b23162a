import Testing

@testable import SeedForge

@Suite("Ingest: NDJSON sources")
struct NDJSONSourceTests {
    @Test func ndjsonRejectsBadLinesAndKeepsGoing() throws {
        let yaml = JSONSourceTests.pipeline(kind: "ndjson", path: "data.ndjson")
        var bytes = Array("{\"id\": 1}\r\n\r\n{\"id\": 2,}\n{\"id\": 3} {\"id\": 4}\n".utf8)
        bytes += [0x7B, 0x22, 0x6E, 0x61, 0x6D, 0x65, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D, 0x0A]  // {"name":"\xFF"}
        bytes += Array("{\"id\": 5, \"id\": 6}\n{\"id\": 7}".utf8)
        let dir = try TempDir()
        try dir.write("data.ndjson", bytes: bytes)
        let pipeline = try Harness.load(yaml, in: dir)
        let result = try Runner.run(
            pipeline, options: RunOptions(outputRoot: dir.path, writeOutputs: false, logger: Harness.silent))
        #expect(result.records("items").map { $0["id"] } == [.int(1), .int(7)])
        let rejects = result.rejects("items")
        #expect(rejects.map { $0.findings[0].rule } == ["json-syntax", "json-syntax", "json-syntax", "duplicate-key"])
        #expect(rejects.map { $0.findings[0].location!.line } == [3, 4, 5, 6])
        #expect(rejects[0].findings[0].message.contains("trailing comma"))
        #expect(rejects[1].findings[0].message.contains("unexpected data after the record"))
        #expect(rejects[2].findings[0].message.contains("invalid UTF-8"))
        #expect(result.counts[0].read == 6)
    }
}
