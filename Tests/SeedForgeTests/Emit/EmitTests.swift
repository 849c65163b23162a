import Foundation
import Testing

@testable import SeedForge

@Suite("Emit: formats and atomic folders")
struct EmitTests {
    @Test func csvQuotesPerRFC4180AndNeutralisesFormulas() {
        #expect(CSVFormat.cell(.string("plain")) == "plain")
        #expect(CSVFormat.cell(.string("a,b")) == "\"a,b\"")
        #expect(CSVFormat.cell(.string("say \"hi\"")) == "\"say \"\"hi\"\"\"")
        #expect(CSVFormat.cell(.string("two\nlines")) == "\"two\nlines\"")
        #expect(CSVFormat.cell(.string("=HYPERLINK(\"http://x\")")) == "\"'=HYPERLINK(\"\"http://x\"\")\"")
        #expect(CSVFormat.cell(.string("+1")) == "'+1")
        #expect(CSVFormat.cell(.string("-2")) == "'-2")
        #expect(CSVFormat.cell(.string("@SUM(A1)")) == "'@SUM(A1)")
        #expect(CSVFormat.cell(.double(-80.2498)) == "-80.2498")
        #expect(CSVFormat.cell(.null) == "")
        #expect(CSVFormat.cell(.array([.int(1), .int(2)])) == "\"[1,2]\"")
    }

    @Test func csvRowsEndWithCRLF() throws {
        let schema = Schema(fields: [
            FieldSpec(name: "id", type: .integer, sourcePath: nil),
            FieldSpec(name: "name", type: .string, sourcePath: nil),
        ])
        let source = SourceText(displayPath: "x", bytes: [])
        let records = [Record(values: [.int(1), .string("a")], origin: Origin(source: source, offset: 0, index: 0))]
        let bytes = CSVFormat().render(records, fields: schema.fields, ids: [FieldID(index: 0), FieldID(index: 1)])
        #expect(String(decoding: bytes, as: UTF8.self) == "id,name\r\n1,a\r\n")
    }

    @Test func jsonRenderedInPiecesIsIdenticalToOnePiece() throws {
        let source = SourceText(displayPath: "x", bytes: [])
        let fields = [
            FieldSpec(name: "id", type: .integer, sourcePath: nil),
            FieldSpec(name: "name", type: .string, sourcePath: nil),
        ]
        let ids = [FieldID(index: 0), FieldID(index: 1)]
        let records = (0..<45_000).map {
            Record(
                values: [.int(Int64($0)), .string("n\"\($0)")], origin: Origin(source: source, offset: 0, index: $0))
        }
        let dir = try TempDir()
        var outputs: [Data] = []
        for threads in [1, 2, 3] {
            let folder = try OutputDirectory(
                target: dir.url.appendingPathComponent("t\(threads)"), threads: Threads(threads))
            try JSONFormat().write(
                records, fields: fields, ids: ids,
                into: OutputWriter(folder: folder, file: "a.json", outputs: [], threads: Threads(threads)))
            try folder.commit()
            outputs.append(try dir.bytes("t\(threads)/a.json"))
        }
        #expect(outputs[0] == outputs[1] && outputs[1] == outputs[2])
        #expect(outputs[0] == Data(JSONFormat().render(records, fields: fields, ids: ids)))
        withExtendedLifetime(source) {}
    }

    /// NDJSON lines are written straight from the records' values: byte for byte the
    /// compact object of the record's fields, escapes, numbers, nulls and nesting included.
    @Test func ndjsonLinesAreTheCompactObjectsOfTheRecords() {
        let source = SourceText(displayPath: "x", bytes: [])
        let fields = [
            FieldSpec(name: "id", type: .integer, sourcePath: nil),
            FieldSpec(name: "na\"me", type: .string, sourcePath: nil),
            FieldSpec(name: "lat", type: .number, sourcePath: nil),
            FieldSpec(name: "tags", type: .any, sourcePath: nil),
        ]
        let ids = [FieldID(index: 0), FieldID(index: 1), FieldID(index: 2), FieldID(index: 3)]
        let values: [[Value]] = [
            [.int(1), .string("Zürich, \"ZH\"\n"), .double(47.36667), .array([.string("a"), .null])],
            [.int(-2), .null, .double(-1e-7), .object(JSONObject([("k", .bool(true)), ("d", .decimal("40.50"))]))],
            [.int(3), .string(String(repeating: "long text ", count: 5)), .int(0)],
        ]
        let records = values.enumerated().map {
            Record(values: $1, origin: Origin(source: source, offset: 0, index: $0))
        }
        let expected = records.map { JSONWriter.compact($0.object(fields: fields, ids: ids)) + "\n" }.joined()
        #expect(
            String(decoding: NDJSONFormat().render(records[...], fields: fields, ids: ids, first: true), as: UTF8.self)
                == expected)
        #expect(NDJSONFormat().render(records[...], fields: [], ids: [], first: true) == Array("{}\n{}\n{}\n".utf8))
        withExtendedLifetime(source) {}
    }

    @Test func stagedFolderReplacesTheTargetOnlyOnCommit() throws {
        let dir = try TempDir()
        let target = dir.url.appendingPathComponent("dataset")
        let first = try OutputDirectory(target: target, threads: 1)
        try first.write(Array("v1".utf8), to: "data.json")
        try first.commit()
        #expect(try dir.read("dataset/data.json") == "v1")

        let failed = try OutputDirectory(target: target, threads: 1)
        try failed.write(Array("v2".utf8), to: "data.json")
        failed.discard()
        #expect(try dir.read("dataset/data.json") == "v1")

        let second = try OutputDirectory(target: target, threads: 1)
        try second.write(Array("v3".utf8), to: "data.json")
        try second.write(Array("new".utf8), to: "pages/1.json")
        try second.commit()
        #expect(try dir.read("dataset/data.json") == "v3")
        #expect(try dir.read("dataset/pages/1.json") == "new")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }
}
