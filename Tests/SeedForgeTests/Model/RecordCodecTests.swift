import Foundation
import Testing

@testable import SeedForge

@Suite("Model: record codec")
struct RecordCodecTests {
    @Test func everyKindOfValueComesBackExactly() throws {
        let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
        let other = SourceText(displayPath: "y.json", bytes: Array("[]".utf8))
        let codec = RecordCodec(sources: [source, other])
        var object = JSONObject()
        object.appendUnchecked("é", .array([.int(-1), .null, .bool(true)]))
        object.appendUnchecked("long key over fifteen bytes", .string(String(repeating: "ü", count: 40)))
        let values: [Value] = [
            .int(0), .int(Int64.min), .int(Int64.max), .int(-300), .double(-0.0), .double(1e-310),
            .double(.infinity), .decimal("-12345678901234567.01"), .string(""), .string("Zürich 🏔"),
            .bool(false), .object(object), .array([]), .null, .null,
        ]
        let records = [
            Record(values: values, origin: Origin(source: other, offset: 123_456_789, index: 70_000)),
            Record(values: [.null], origin: Origin(source: source, offset: 0, index: 0)),
            // An unnested element keeps the offset of the record it came from.
            Record(
                values: [.int(5)],
                origin: Origin(element: 40, of: Origin(source: source, offset: 12, index: 3))),
        ]
        var bytes: [UInt8] = []
        for record in records { codec.encode(record, into: &bytes) }
        let decoded = codec.decodeAll(bytes, count: 3, width: 16)
        #expect(decoded.count == 3)
        #expect(decoded[2].origin.parentOffset == 12)
        #expect(decoded[2].origin.offset == 40)
        #expect(decoded[2].origin.index == 3)
        #expect(decoded[1].origin.parentOffset == -1)
        // Trailing nulls are not stored; the schema's width is given back.
        #expect(decoded[0].values.count == 16)
        #expect(Array(decoded[0].values.prefix(values.count)) == values)
        #expect(decoded[0].origin.source === other)
        #expect(decoded[0].origin.offset == 123_456_789)
        #expect(decoded[0].origin.index == 70_000)
        #expect(decoded[1].values == [Value](repeating: .null, count: 16))
        #expect(decoded[1].origin.source === source)
        // Compact: a city takes under 50 bytes, where in memory its six values alone take 144.
        let city = Record(
            values: [
                .int(703_448), .string("Kyiv"), .string("UA"), .double(50.45466), .double(30.5238), .string("kyiv"),
            ],
            origin: Origin(source: other, offset: 2_000_000, index: 20_000))
        var cityBytes: [UInt8] = []
        codec.encode(city, into: &cityBytes)
        #expect(cityBytes.count < 50, "\(cityBytes.count) bytes")
    }

    /// A record without nested values is stored through a pointer (`encode`'s fast path):
    /// its bytes must be those the value-by-value encoder writes, for every flat kind, text
    /// past a one-byte length and past the stack, and it must come back exactly.
    @Test func aFlatRecordHasTheBytesOfTheValueByValueEncoding() {
        let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
        let codec = RecordCodec(sources: [source])
        let values: [Value] = [
            .int(0), .int(Int64.min), .int(Int64.max), .int(-300), .double(-0.0), .double(.nan),
            .double(-1.5e300), .decimal("0.10"), .string(""), .string("Zürich 🏔"),
            .string(String(repeating: "é", count: 200)), .string(String(repeating: "x", count: 100_000)),
            .bool(true), .bool(false), .null, .string("a"), .null,
        ]
        let record = Record(values: values, origin: Origin(source: source, offset: 1 << 40, index: 129))
        var fast: [UInt8] = [7]
        codec.encode(record, into: &fast)
        var expected: [UInt8] = [7]
        for header: UInt64 in [0, 1 << 40, 129, 0, UInt64(values.count - 1)] {
            RecordCodec.appendVarint(header, to: &expected)
        }
        for value in values.dropLast() { RecordCodec.encode(value, into: &expected) }
        #expect(fast == expected)
        let decoded = codec.decodeAll(Array(fast.dropFirst()), count: 1, width: values.count)
        #expect(decoded.count == 1)
        // .nan is not equal to itself: compare its bits.
        for (index, value) in values.enumerated() {
            if case .double(let number) = value, number.isNaN {
                guard case .double(let back) = decoded[0].values[index] else {
                    Issue.record("field \(index) is not a double")
                    continue
                }
                #expect(back.bitPattern == number.bitPattern)
            } else {
                #expect(decoded[0].values[index] == value, "field \(index)")
            }
        }
    }

    /// Records as bytes: a batch is split at its record boundaries without decoding it,
    /// a record decoded only as far as some fields gives those fields (the rest null), and
    /// a large batch decoded on several threads gives what one thread gives.
    @Test func aBatchSplitsAtRecordBoundariesAndDecodesInPartsAndInParallel() throws {
        let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
        let codec = RecordCodec(sources: [source])
        var object = JSONObject()
        object.appendUnchecked("nested", .array([.string("a long text of more than fifteen bytes"), .double(1.5)]))
        var records: [Record] = []
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for index in 0..<20_000 {
            let values: [Value] = [
                .int(Int64(index) * 7_919 - 50_000), .string("City \(index) Ünïcode"),
                index % 3 == 0 ? .null : .double(Double(index) / 3), index % 5 == 0 ? .object(object) : .bool(true),
                .decimal("\(index).50"), index % 2 == 0 ? .array([.int(1), .null]) : .string(""),
            ]
            let record = Record(values: values, origin: Origin(source: source, offset: index * 90, index: index))
            records.append(record)
            codec.encode(record, into: &bytes)
            ends.append(bytes.count)
        }
        let starts = bytes.withUnsafeBufferPointer { RecordCodec.starts($0, count: records.count) }
        #expect(starts.count == records.count + 1)
        #expect(starts.first == 0)
        #expect(Array(starts.dropFirst()) == ends)
        // Only fields 1 and 4 made; the others skipped, whatever their kind.
        var reading = [Bool](repeating: false, count: 8)
        reading[1] = true
        reading[4] = true
        bytes.withUnsafeBufferPointer { buffer in
            for index in [0, 1, 5, 9_999, 19_999] {
                var reader = RecordCodec.Reader(buffer, at: starts[index])
                let partial = codec.decode(&reader, width: 8, reading: reading)
                #expect(reader.position == starts[index + 1])
                #expect(partial.values.count == 8)
                #expect(partial[FieldID(index: 1)] == records[index][FieldID(index: 1)])
                #expect(partial[FieldID(index: 4)] == records[index][FieldID(index: 4)])
                for field in [0, 2, 3, 5, 6, 7] { #expect(partial[FieldID(index: field)] == .null) }
                #expect(partial.origin.offset == index * 90)
                #expect(partial.origin.index == index)
            }
        }
        let serial = codec.decodeAll(bytes, count: records.count, width: 6)
        let parallel = codec.decodeAll(bytes, count: records.count, width: 6, threads: Threads(3))
        #expect(serial.count == records.count)
        #expect(parallel.count == records.count)
        #expect(serial.map(\.values) == records.map(\.values))
        #expect(parallel.map(\.values) == records.map(\.values))
        #expect(parallel.map(\.origin.offset) == records.map(\.origin.offset))
        // Ranges decoded into their places of one array, the last range first (as threads
        // side by side may), give the records in order, each range ending where the next
        // record starts.
        let cuts = [0, 7, 12_345, 20_000]
        let placed = bytes.withUnsafeBufferPointer { buffer in
            RecordCodec.filled(records.count) { places in
                for piece in (0..<3).reversed() {
                    var reader = RecordCodec.Reader(buffer, at: starts[cuts[piece]])
                    codec.decode(
                        &reader, count: cuts[piece + 1] - cuts[piece], width: 6, reading: nil,
                        into: places + cuts[piece])
                    #expect(reader.position == starts[cuts[piece + 1]])
                }
            }
        }
        #expect(placed.map(\.values) == records.map(\.values))
        #expect(placed.map(\.origin.index) == records.map(\.origin.index))
    }

    /// Records decoded over others (a spilled sort's outputs, batch after batch) reuse the
    /// rows no one else holds and have room, and are the records a fresh decode gives:
    /// values, nulls left by `reading` and by a shorter record, and origins; a row a copy
    /// still holds (an output that kept a record) is left as it was.
    @Test func recordsWithTextsOfMultiByteLengthsSplitWhereTheyEnd() {
        // Texts and decimals around the one-byte length's end (127, 128), far past it, and
        // large origin numbers: `starts` and `withValueOffsets` skip them in line.
        let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
        let codec = RecordCodec(sources: [source])
        var bytes: [UInt8] = []
        var ends: [Int] = []
        var records: [Record] = []
        for (index, length) in [0, 1, 127, 128, 129, 300, 16_383, 16_384, 70_000].enumerated() {
            let text = String(repeating: "a", count: length)
            let values: [Value] = [
                .string(text), .decimal("1" + String(repeating: "0", count: length)), .int(Int64.min),
                .double(2.5), .array([.string(text)]), .string("end \(index)"),
            ]
            let record = Record(
                values: values, origin: Origin(source: source, offset: 1 << (index * 4), index: index << 20))
            records.append(record)
            codec.encode(record, into: &bytes)
            ends.append(bytes.count)
        }
        let starts = bytes.withUnsafeBufferPointer { RecordCodec.starts($0, count: records.count) }
        #expect(Array(starts.dropFirst()) == ends)
        bytes.withUnsafeBufferPointer { buffer in
            for index in records.indices {
                let record = UnsafeBufferPointer(rebasing: buffer[starts[index]..<starts[index + 1]])
                RecordCodec.withValueOffsets(of: record, count: 7) { offsets in
                    for field in 0..<6 {
                        var reader = RecordCodec.Reader(record, at: offsets[field])
                        #expect(reader.value() == records[index].values[field])
                    }
                    #expect(offsets[6] == -1)
                }
            }
        }
    }

    @Test func recordsDecodedOverOthersAreFreshRecordsAndLeaveHeldRowsAlone() {
        let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
        let other = SourceText(displayPath: "y.json", bytes: Array("[]".utf8))
        let codec = RecordCodec(sources: [source, other])
        func batch(_ seed: Int, source: SourceText) -> (records: [Record], bytes: [UInt8]) {
            var records: [Record] = []
            var bytes: [UInt8] = []
            for index in 0..<50 {
                let number = seed * 1_000 + index
                // Texts of every length up to 40 bytes, some records shorter than others.
                let all: [Value] = [
                    .int(Int64(number)), .string(String(repeating: "é", count: (number * 7) % 21)),
                    number % 4 == 0 ? .null : .double(Double(number) / 8), .decimal("\(number).25"),
                ]
                let values = Array(all.dropLast(number % 3 == 0 ? 2 : 0))
                let record = Record(values: values, origin: Origin(source: source, offset: number * 10, index: number))
                records.append(record)
                codec.encode(record, into: &bytes)
            }
            return (records, bytes)
        }
        var reading = [Bool](repeating: true, count: 5)
        reading[2] = false
        let first = batch(1, source: source)
        var records = codec.decodeAll(first.bytes, count: 50, width: 5)
        let kept = records[7]
        let keptValues = kept.values
        let rows = records.map { ObjectIdentifier($0.row) }
        for (seed, readingNow) in [(2, reading), (3, nil), (4, reading)] {
            let next = batch(seed, source: seed == 3 ? source : other)
            next.bytes.withUnsafeBufferPointer { buffer in
                var reader = RecordCodec.Reader(buffer)
                records.withUnsafeMutableBufferPointer { places in
                    codec.decode(&reader, count: 50, width: 5, reading: readingNow, over: places.baseAddress!)
                }
                #expect(reader.position == buffer.count)
            }
            let expected = next.bytes.withUnsafeBufferPointer { buffer in
                var fresh = RecordCodec.Reader(buffer)
                return (0..<50).map { _ in codec.decode(&fresh, width: 5, reading: readingNow) }
            }
            #expect(records.map(\.values) == expected.map(\.values))
            #expect(records.map(\.origin.offset) == next.records.map(\.origin.offset))
            #expect(records.map(\.origin.index) == next.records.map(\.origin.index))
            #expect(records.allSatisfy { $0.origin.source === (seed == 3 ? source : other) })
            #expect(kept.values == keptValues)
        }
        // Most rows were reused (those with room), never the one a copy holds.
        let reused = zip(records, rows).filter { ObjectIdentifier($0.row) == $1 }.count
        #expect(reused > 10, "\(reused) rows reused")
        #expect(ObjectIdentifier(records[7].row) != ObjectIdentifier(kept.row))
    }

    @Test func varintLengthIsWhatAppendVarintWrites() {
        for value: UInt64 in [0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, 1 << 35, UInt64.max] {
            var bytes: [UInt8] = []
            RecordCodec.appendVarint(value, to: &bytes)
            #expect(RecordCodec.varintLength(value) == bytes.count, "\(value)")
            // Read back, one-byte numbers in line and longer ones through a call, both
            // ending where they end.
            bytes.append(0x2A)
            bytes.withUnsafeBufferPointer { buffer in
                var reader = RecordCodec.Reader(buffer)
                #expect(reader.varint() == value, "\(value)")
                #expect(reader.varint() == 0x2A, "\(value)")
                #expect(reader.atEnd)
            }
        }
    }

    /// A run of one source file numbers its records' origins without a lookup: they come
    /// back with that source, doubles bit for bit.
    @Test func recordsOfARunOfOneSourceComeBackExactly() {
        let source = SourceText(displayPath: "cities.json", bytes: Array("[]".utf8))
        let codec = RecordCodec(sources: [source])
        let values: [Value] = [
            .int(-703_448), .string("Kyiv"), .double(-0.0), .double(.nan), .double(50.45466), .double(-.infinity),
        ]
        let record = Record(values: values, origin: Origin(source: source, offset: 1_917_296_000, index: 19_999_999))
        var bytes: [UInt8] = []
        codec.encode(record, into: &bytes)
        codec.encode(record, into: &bytes)
        let decoded = codec.decodeAll(bytes, count: 2, width: 6)
        #expect(decoded.count == 2)
        for copy in decoded {
            #expect(copy.origin.source === source)
            #expect(copy.origin.offset == 1_917_296_000)
            #expect(copy.origin.index == 19_999_999)
            let words = copy.values.map { value -> UInt64? in
                if case .double(let number) = value { return number.bitPattern } else { return nil }
            }
            #expect(
                words
                    == values.map { value -> UInt64? in
                        if case .double(let number) = value { return number.bitPattern } else { return nil }
                    })
            #expect(copy.values[0] == .int(-703_448))
            #expect(copy.values[1] == .string("Kyiv"))
        }
    }
}
