import Testing

@testable import SeedForge

/// Records rendered in place (`RecordFrame`, `CSVFormat.writeCell`) must give the bytes the
/// value-by-value writers give: every `Value` case, escapes, long and short text, records
/// shorter than the fields, for the NDJSON, indented JSON, snapshot and CSV shapes.
@Suite("JSON: records rendered in place")
struct RecordFrameTests {
    /// One of every case, nested values, text that needs escapes or quoting, text past the
    /// small-string size (kept in its own storage), a quote before a combining accent.
    static let values: [Value] = [
        .null, .bool(true), .bool(false), .int(0), .int(-9_223_372_036_854_775_808), .int(1266),
        .double(48.86752), .double(-0.001), .double(1e-7), .double(123_456_789_012_345_680), .double(0.1),
        .decimal("40.50"), .decimal("-1299"), .string(""), .string("Zürich"), .string("a,b"),
        .string("say \"hi\"\r\n\t\u{1}"), .string("\"\u{301} accented quote"), .string("=SUM(A1)"),
        .string("+1-604-555-0100"), .string(String(repeating: "Takht-e Qeyşar, long ", count: 4)),
        .array([]), .array([.int(1), .string("x"), .null]), .array([.object(JSONObject([("k", .double(2.5))]))]),
        .object(JSONObject()), .object(JSONObject([("a", .array([.bool(false)])), ("b\"", .string("c,d"))])),
    ]

    /// Records of five fields cycling through `values`; every seventh is two values short.
    static func records(_ source: SourceText) -> [Record] {
        (0..<60).map { index in
            let width = index % 7 == 3 ? 3 : 5
            let values = (0..<width).map { Self.values[(index * 5 + $0 * 3) % Self.values.count] }
            return Record(values: values, origin: Origin(source: source, offset: 0, index: index))
        }
    }

    static let ids = [FieldID(index: 4), FieldID(index: 0), FieldID(index: 2), FieldID(index: 1), FieldID(index: 3)]

    @Test func compactAndIndentedFramesWriteEachValueAsTheWriterDoes() {
        let source = SourceText(displayPath: "x", bytes: [])
        let records = Self.records(source)
        let prefixes: [[UInt8]] = Self.ids.indices.map { Array("<\($0)>".utf8) }
        for indent in [nil, 2] as [Int?] {
            for first in [true, false] {
                let frame = RecordFrame(
                    separator: Array(";".utf8), open: Array("(".utf8), fields: prefixes, close: Array(")".utf8),
                    indent: indent)
                var rendered = JSONWriter()
                rendered.append("head")
                frame.render(records[5...], ids: Self.ids, first: first, into: &rendered)
                var expected = JSONWriter()
                expected.append("head")
                for (position, record) in records[5...].enumerated() {
                    if position > 0 || !first { expected.append(";") }
                    expected.append("(")
                    for (field, id) in Self.ids.enumerated() {
                        expected.append(bytes: prefixes[field])
                        if let indent {
                            expected.writePretty(record[id], indent: indent)
                        } else {
                            expected.write(record[id])
                        }
                    }
                    expected.append(")")
                }
                #expect(
                    String(decoding: rendered.bytes, as: UTF8.self) == String(decoding: expected.bytes, as: UTF8.self))
            }
        }
        withExtendedLifetime(source) {}
    }

    /// A snapshot line made beside an output's rendering (values copied from it, nested
    /// values written again compact, fields the output does not write rendered from the
    /// record) is the line the snapshot's own frame writes, for indented and compact
    /// outputs, fields in another order, some of them left out; with the records' bounds
    /// marked too (pages cut from the rendering), the bounds are those marked alone.
    @Test func linesRenderedBesideAreTheLinesRenderedAlone() {
        let source = SourceText(displayPath: "x", bytes: [])
        let records = Self.records(source)
        // The output writes all five fields: the line's (field ids 1, 4, 3) are copied from
        // its positions 3, 0, 4. It writes three (ids 4, 0, 2): the line's ids 1 and 3 are
        // rendered from the records (3 is past the short records' end: null), 4 and 2 copied.
        let cases: [(output: [FieldID], sources: [RecordFrame.Beside.Source])] = [
            (Self.ids, [.copied(3), .copied(0), .copied(4)]),
            (
                Array(Self.ids[0..<3]),
                [.rendered(FieldID(index: 1)), .copied(0), .rendered(FieldID(index: 3)), .copied(2)]
            ),
        ]
        for (outputIDs, sources) in cases {
            let lineIDs = sources.map { source -> FieldID in
                switch source {
                case .copied(let position): return outputIDs[position]
                case .rendered(let id): return id
                }
            }
            let line = Snapshot.lineFrame(fields: sources.count)
            for indent in [nil, 2] as [Int?] {
                for first in [true, false] {
                    let frame = RecordFrame(
                        separator: Array(";".utf8), open: Array("(".utf8),
                        fields: outputIDs.map { Array("<\($0.index)>".utf8) },
                        close: Array(")".utf8), indent: indent)
                    var alone = JSONWriter()
                    frame.render(records[3...], ids: outputIDs, first: first, into: &alone)
                    var boundsAlone: [Int] = []
                    var markedAlone = JSONWriter()
                    frame.render(records[3...], ids: outputIDs, first: first, into: &markedAlone, bounds: &boundsAlone)
                    var lineAlone = JSONWriter()
                    line.render(records[3...], ids: lineIDs, first: first, into: &lineAlone)
                    let expected = "head\n" + String(decoding: lineAlone.bytes, as: UTF8.self)
                    let beside = RecordFrame.Beside(frame: line, sources: sources)

                    var output = JSONWriter()
                    var lines = JSONWriter()
                    lines.append("head\n")
                    frame.render(
                        records[3...], ids: outputIDs, first: first, into: &output, beside: beside, into: &lines)
                    #expect(output.bytes == alone.bytes)
                    #expect(String(decoding: lines.bytes, as: UTF8.self) == expected)

                    var marked = JSONWriter()
                    var bounds: [Int] = []
                    var markedLines = JSONWriter()
                    markedLines.append("head\n")
                    frame.render(
                        records[3...], ids: outputIDs, first: first, into: &marked, bounds: &bounds, beside: beside,
                        into: &markedLines)
                    #expect(marked.bytes == alone.bytes)
                    #expect(bounds == boundsAlone)
                    #expect(bounds.count == 2 * records[3...].count)
                    #expect(String(decoding: markedLines.bytes, as: UTF8.self) == expected)
                    // Nested values are among the fields, so the indented case re-renders some.
                    #expect(
                        records[3...].contains { record in lineIDs.contains { RecordFrameTests.nested(record[$0]) } })
                }
            }
        }
        withExtendedLifetime(source) {}
    }

    static func nested(_ value: Value) -> Bool {
        switch value {
        case .array(let array): return !array.isEmpty
        case .object(let object): return object.count > 0
        default: return false
        }
    }

    /// Records far longer than the room reserved ahead (a few bytes a field): the raw
    /// buffer grows many times in one batch and keeps every byte written before.
    @Test func recordsLongerThanTheRoomReservedAheadAreWrittenWhole() {
        let source = SourceText(displayPath: "x", bytes: [])
        let records = (0..<300).map { index in
            Record(
                values: [
                    .string(String(repeating: "Île-de-France \(index) ", count: index % 40)), .int(Int64(index)),
                    .double(Double(index) / 8), .string("q\"\(index)"),
                ],
                origin: Origin(source: source, offset: 0, index: index))
        }
        let ids = [FieldID(index: 0), FieldID(index: 1), FieldID(index: 2), FieldID(index: 3)]
        let frame = RecordFrame(
            separator: Array(",".utf8), open: [], fields: ids.map { Array("<\($0.index)>".utf8) },
            close: Array("\n".utf8))
        var rendered = JSONWriter()
        frame.render(records[...], ids: ids, first: true, into: &rendered)
        var expected = JSONWriter()
        for (position, record) in records.enumerated() {
            if position > 0 { expected.append(",") }
            for id in ids {
                expected.append("<\(id.index)>")
                expected.write(record[id])
            }
            expected.append("\n")
        }
        #expect(rendered.bytes.count > 100_000)
        #expect(String(decoding: rendered.bytes, as: UTF8.self) == String(decoding: expected.bytes, as: UTF8.self))
        withExtendedLifetime(source) {}
    }

    @Test func jsonOutputIsTheIndentedObjectsOfTheRecords() {
        let source = SourceText(displayPath: "x", bytes: [])
        let records = Self.records(source)
        let fields = Self.ids.map { FieldSpec(name: "f\($0.index)\"", type: .any, sourcePath: nil) }
        var expected = JSONWriter()
        for (position, record) in records.enumerated() {
            expected.append(position == 0 ? "  " : ",\n  ")
            expected.writePretty(record.object(fields: fields, ids: Self.ids), indent: 1)
        }
        // Two pieces, as a file rendered in chunks: the second starts after a comma.
        let rendered =
            JSONFormat().render(records[..<17], fields: fields, ids: Self.ids, first: true)
            + JSONFormat().render(records[17...], fields: fields, ids: Self.ids, first: false)
        #expect(String(decoding: rendered, as: UTF8.self) == String(decoding: expected.bytes, as: UTF8.self))
        withExtendedLifetime(source) {}
    }

    @Test func csvCellsAreWrittenAsCellWritesThem() {
        for value in Self.values {
            for neutralise in [true, false] {
                var writer = JSONWriter()
                CSVFormat.writeCell(value, neutralise: neutralise, into: &writer)
                #expect(String(decoding: writer.bytes, as: UTF8.self) == CSVFormat.cell(value, neutralise: neutralise))
            }
        }
    }

    /// `"` then U+0301 is one `Character`: replacing the text `"` left that quote single,
    /// which ended the quoted cell early (invalid CSV). It is doubled like any other.
    @Test func csvDoublesAQuoteFollowedByACombiningMark() {
        let cell = "\"\u{301}, x"
        var writer = JSONWriter()
        CSVFormat.writeCell(.string(cell), neutralise: true, into: &writer)
        #expect(writer.bytes == Array("\"\"\"\u{301}, x\"".utf8))
        #expect(CSVFormat.quote(cell) == "\"\"\"\u{301}, x\"")
    }

    @Test func csvRowsAreTheCellsOfTheRecords() {
        let source = SourceText(displayPath: "x", bytes: [])
        let records = Self.records(source)
        let fields = Self.ids.map { FieldSpec(name: "f\($0.index)", type: .any, sourcePath: nil) }
        let expected = records.map { record in
            Self.ids.map { CSVFormat.cell(record[$0], neutralise: $0.index != 2) }.joined(separator: ",") + "\r\n"
        }.joined()
        let format = CSVFormat(neutralise: true, plainFields: [FieldID(index: 2)])
        #expect(
            String(decoding: format.render(records[...], fields: fields, ids: Self.ids, first: true), as: UTF8.self)
                == expected)
        withExtendedLifetime(source) {}
    }
}
