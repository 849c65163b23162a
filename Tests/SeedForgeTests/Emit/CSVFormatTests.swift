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
}
