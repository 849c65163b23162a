import Testing

@testable import SeedForge

@Suite("Model: packed rows")
struct PackedRowTests {
    static let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
    static let origin = Origin(source: source, offset: 0, index: 0)

    static func nested() -> Value {
        var object = JSONObject()
        object.appendUnchecked("é", .array([.int(-1), .null, .bool(true)]))
        object.appendUnchecked("long key over fifteen bytes", .string(String(repeating: "ü", count: 40)))
        return .object(object)
    }

    static let values: [Value] = [
        .int(Int64.min), .int(Int64.max), .double(-0.0), .double(.nan), .decimal("-12345678901234567.01"),
        .string(""), .string("Zürich 🏔 and a text longer than fifteen bytes"), .bool(true), .bool(false), .null,
        nested(), .array([]),
    ]

    @Test func everyKindOfValueReadsBackAsItWasSet() {
        let record = Record(values: Self.values, width: 20, origin: Self.origin)
        #expect(record.row.count == Self.values.count)
        #expect(record.row.width == 20)
        for (index, value) in Self.values.enumerated() {
            let read = record[FieldID(index: index)]
            if case .double(let expected) = value, case .double(let actual) = read {
                #expect(expected.bitPattern == actual.bitPattern, "value \(index)")
            } else {
                #expect(read == value, "value \(index)")
            }
        }
        // Past the values, within the room and beyond it: null, as past an array.
        #expect(record[FieldID(index: 15)] == .null)
        #expect(record[FieldID(index: 40)] == .null)
    }

    @Test func settingAFieldChangesThatFieldOnly() {
        var record = Record(values: [.string("  Zürich  "), .int(3), .string("CH")], width: 4, origin: Self.origin)
        // (The row's identity, not a reference to it: a second reference would make the
        // record copy its row before changing it.)
        let row = ObjectIdentifier(record.row)
        // A shorter text takes the place of the longer one: the row is changed in place.
        record[FieldID(index: 0)] = .string("Zürich")
        #expect(ObjectIdentifier(record.row) == row)
        // A field added within the row's room (a number needs no text room).
        record[FieldID(index: 3)] = .double(8.5)
        #expect(ObjectIdentifier(record.row) == row)
        // A longer text than the row has room for: a new row, every value kept.
        record[FieldID(index: 2)] = .string(String(repeating: "long text ", count: 10))
        #expect(
            record.values == [
                .string("Zürich"), .int(3), .string(String(repeating: "long text ", count: 10)), .double(8.5),
            ])
        // A field beyond the row's width: the row grows.
        record[FieldID(index: 6)] = .string("seven")
        #expect(record.values.count == 7)
        #expect(record[FieldID(index: 6)] == .string("seven"))
        #expect(record[FieldID(index: 5)] == .null)
        #expect(record[FieldID(index: 0)] == .string("Zürich"))
    }

    @Test func aCopyOfARecordIsAValue() {
        let original = Record(values: [.string("Bern"), .int(1)], origin: Self.origin)
        var copy = original
        copy[FieldID(index: 0)] = .string("Basel")
        copy[FieldID(index: 1)] = .null
        #expect(original.values == [.string("Bern"), .int(1)])
        #expect(copy.values == [.string("Basel"), .null])
    }

    @Test func aBuiltRowHoldsTheLastValueSetAndRoomForAddedTexts() {
        var builder = RowBuilder()
        builder.reset(count: 3)
        let name = Array("Sankt Gallen".utf8)
        name.withUnsafeBufferPointer { builder.setText(0, $0) }
        builder.set(1, .string("replaced"))
        builder.set(1, .int(42))
        builder.set(2, Self.nested())
        #expect(builder.value(at: 0) == .string("Sankt Gallen"))
        var record = Record(row: builder.make(width: 4, textFieldsAdded: 1), origin: Self.origin)
        #expect(record.values == [.string("Sankt Gallen"), .int(42), Self.nested()])
        let row = ObjectIdentifier(record.row)
        // A search key as long as the name fits in the room made for it.
        record[FieldID(index: 3)] = .string("sankt gallen")
        #expect(ObjectIdentifier(record.row) == row)
        #expect(record[FieldID(index: 3)] == .string("sankt gallen"))
        // The builder starts the next record empty.
        builder.reset(count: 2)
        #expect(Record(row: builder.make(width: 2), origin: Self.origin).values == [.null, .null])
    }

    @Test func encodedValuesDecodeToTheSameRowAndReadingKeepsOnlyTheFieldsAsked() {
        let row = PackedRow.make(Self.values + [.null, .null], width: 16)
        var bytes: [UInt8] = []
        row.encodeValues(into: &bytes)
        let whole = bytes.withUnsafeBufferPointer { buffer -> [Value] in
            var reader = RecordCodec.Reader(buffer)
            let count = Int(reader.varint())
            // Trailing nulls are not written.
            #expect(count == Self.values.count)
            let decoded = PackedRow.decode(&reader, count: count, width: 16)
            #expect(reader.atEnd)
            return decoded.values()
        }
        #expect(whole.count == 16)
        #expect(Array(whole.prefix(Self.values.count)).description == Self.values.description)
        let reading = Self.values.indices.map { $0 == 6 || $0 == 10 }
        let some = bytes.withUnsafeBufferPointer { buffer -> [Value] in
            var reader = RecordCodec.Reader(buffer)
            let count = Int(reader.varint())
            return PackedRow.decode(&reader, count: count, width: 16, reading: reading).values()
        }
        for (index, value) in some.enumerated() {
            #expect(value == (reading.indices.contains(index) && reading[index] ? Self.values[index] : .null))
        }
    }
}
