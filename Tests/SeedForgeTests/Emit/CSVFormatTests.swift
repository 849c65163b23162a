import Testing

@testable import SeedForge

@Suite("Emit: CSV format")
struct CSVFormatTests {
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

    /// Rows rendered into raw memory hold, cell by cell, the text `cell` gives: numbers,
    /// text needing quotes or neutralising (also past 8 bytes, where it is looked for a
    /// word at a time), booleans, decimals, lists, nulls and fields a record lacks.
    @Test func renderedRowsHoldTheCellsTextForEveryKindOfValue() {
        let texts = [
            "plain", "", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", "=SUM(A1)", "+1-604-555-0100", "-2", "@x",
            "\ttab", "a long plain text of many words", "a long text with a comma, late", "fünf Äpfel, süß",
            "a long text with a \"quote\" late", "ends with a line feed\n",
        ]
        var values: [Value] = texts.map(Value.string)
        values += [
            .int(0), .int(-42), .int(Int64.max), .double(48.85341), .double(-0.5), .double(1e300), .double(1e-9),
            .decimal("40.50"), .bool(true), .bool(false), .null, .array([.string("a,b"), .int(1)]),
            .object(JSONObject([("k", .string("v, w"))])),
        ]
        let source = SourceText(displayPath: "x", bytes: [])
        let fields = (0..<3).map { FieldSpec(name: "f\($0)", type: .any, sourcePath: nil) }
        let ids = [FieldID(index: 0), FieldID(index: 1), FieldID(index: 2)]
        var records: [Record] = []
        for (index, value) in values.enumerated() {
            let other = values[(index * 7 + 3) % values.count]
            // Every third record lacks its last field.
            let row = index % 3 == 0 ? [value, other] : [value, other, .string("+\(index)")]
            records.append(Record(values: row, origin: Origin(source: source, offset: 0, index: index)))
        }
        for format in [CSVFormat(), CSVFormat(neutralise: true, plainFields: [FieldID(index: 1)])] {
            let bytes = format.render(records[...], fields: fields, ids: ids, first: true)
            let expected = records.map { record in
                ids.map { id in
                    id.index < record.values.count
                        ? CSVFormat.cell(record.values[id.index], neutralise: !format.plainFields.contains(id)) : ""
                }.joined(separator: ",") + "\r\n"
            }.joined()
            #expect(String(decoding: bytes, as: UTF8.self) == expected)
        }
    }
}
