import Testing

@testable import SeedForge

@Suite("Model: record origins")
struct OriginTests {
    static let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))

    @Test("offset, index and parent offset read back as given, at the ends of their ranges")
    func roundTrip() {
        let largest = (1 << 48) - 2
        for (offset, index, parent) in [
            (0, 0, -1), (1, 1, 0), (largest + 1, Int(UInt32.max), largest), (123_456_789, 70_000, 12),
            (1 << 40, 0x1_0000, -1), (0xFFFF, 0xFFFF, 0x1_0000),
        ] {
            let origin = Origin(source: Self.source, offset: offset, index: index, parentOffset: parent)
            #expect(origin.offset == offset)
            #expect(origin.index == index)
            #expect(origin.parentOffset == parent)
        }
    }

    @Test("setting the index leaves the offsets as they were")
    func settingIndex() {
        var origin = Origin(source: Self.source, offset: (1 << 48) - 1, index: 3, parentOffset: (1 << 48) - 2)
        for index in [0, 0xFFFF, 0x1_0000, 0xDEAD_BEEF, Int(UInt32.max), 7] {
            origin.index = index
            #expect(origin.index == index)
            #expect(origin.offset == (1 << 48) - 1)
            #expect(origin.parentOffset == (1 << 48) - 2)
        }
    }

    @Test("an element's origin points at its parent record's offset, and keeps its index")
    func element() {
        let parent = Origin(source: Self.source, offset: 500, index: 70_000)
        let element = Origin(element: 520, of: parent)
        #expect((element.offset, element.index, element.parentOffset) == (520, 70_000, 500))
        let nested = Origin(element: 530, of: element)
        #expect((nested.offset, nested.index, nested.parentOffset) == (530, 70_000, 500))
        #expect(parent.parentOffset == -1)
    }

    @Test("a record takes 32 bytes in an array: its row's reference, its source and two packed words")
    func size() {
        #expect(MemoryLayout<Origin>.stride == 24)
        #expect(MemoryLayout<Record>.stride == 32)
    }
}

@Suite("Ingest: records numbered past an origin's index")
struct IndexLimitTests {
    /// A file whose records would number past `Origin.indexLimit` (a shard of a file of more
    /// than 2^32 records, numbered on from the records before its byte range) is refused with
    /// an error naming the file, not a trap: the index is kept in 32 bits.
    @Test("a file numbered past the limit is refused with its name; up to it, records are taken")
    func refusedPastTheLimit() throws {
        let text = SourceText(displayPath: "huge.ndjson", bytes: Array("{}\n{}\n".utf8))
        let collection = CollectionID("rows")
        func sink(from first: Int) -> IngestSink {
            var sink = IngestSink(
                collection: collection, mapping: FieldMapping(fields: [], unknownFields: .ignore),
                state: RunState(schemas: [:], threads: 1), threads: 1, limits: .defaults)
            sink.firstIndex = first
            return sink
        }
        func entries() -> [[IngestEntry]] {
            [(0..<2).map { .record(Record(values: [], origin: Origin(source: text, offset: 3 * $0, index: $0))) }]
        }
        var fits = sink(from: Origin.indexLimit - 2)
        try fits.merge(entries(), of: text)
        #expect(fits.count == 2)
        var over = sink(from: Origin.indexLimit - 1)
        let error = try #require(throws: SourceError.self) { try over.merge(entries(), of: text) }
        #expect(error.description.hasPrefix("huge.ndjson:1:1: error: more than 4294967296 records in one file"))
        #expect(over.count == 0)
    }
}
