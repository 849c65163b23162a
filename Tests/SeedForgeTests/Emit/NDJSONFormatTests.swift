import Testing

@testable import SeedForge

@Suite("Emit: NDJSON format")
struct NDJSONFormatTests {
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
}
