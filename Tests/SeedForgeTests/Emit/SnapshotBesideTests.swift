import Testing

@testable import SeedForge

/// Which output renders a collection's snapshot lines beside its records: only one that
/// writes every record as it is, in a frame. Any other would give the snapshot values it
/// does not hold (filtered or rounded); a field the snapshot keeps and the output does not
/// write is rendered from the record.
@Suite("Emit: the snapshot's lines beside an output")
struct SnapshotBesideTests {
    static func pipeline(_ outputs: String) throws -> Pipeline {
        try Harness.load(
            """
            name: shops
            sources:
              shops:
                kind: json
                path: shops.json
                id: id
                fields: {id: integer, name: string, city: string, price: decimal}
            outputs:
            \(outputs)
            """, files: ["shops.json": #"[{"id": 1, "name": "Hive", "city": "Lviv", "price": 4.5}]"#])
    }

    static func beside(_ outputs: String) throws -> SnapshotBeside? {
        let pipeline = try pipeline(outputs)
        let shops = pipeline.collections[0]
        let carriedByPages = Set(PagesBeside.find(in: pipeline.outputs).map(\.json))
        return SnapshotBeside.find(
            for: shops, in: pipeline, schema: pipeline.schemas[loaded: shops], leaving: carriedByPages)
    }

    static let id = FieldID(index: 0)
    static let price = FieldID(index: 3)

    @Test func aJSONOrNDJSONOutputCarriesTheLines() throws {
        let json = try #require(try Self.beside("  - {file: shops.json, collection: shops}"))
        #expect(json.output == 0)
        #expect(json.sources == [.copied(0), .copied(1), .copied(2), .copied(3)])
        // The first output that qualifies; fields in another order map to their positions.
        let ndjson = try #require(
            try Self.beside(
                """
                  - {file: shops.csv, collection: shops}
                  - {file: shops.ndjson, collection: shops, fields: [price, city, name, id]}
                """))
        #expect(ndjson.output == 1)
        #expect(ndjson.sources == [.copied(3), .copied(2), .copied(1), .copied(0)])
        // A field the snapshot keeps (written by the csv) that the json leaves out is
        // rendered from the record.
        let some = try #require(
            try Self.beside(
                """
                  - {file: shops.json, collection: shops, fields: [name, id, city]}
                  - {file: shops.csv, collection: shops}
                """))
        #expect(some.output == 0)
        #expect(some.sources == [.copied(1), .copied(0), .copied(2), .rendered(Self.price)])
    }

    @Test func pagesCarryTheLinesAndTheJSONBesideThem() throws {
        // The shipped cities' shape: a json with a layout of objects, written beside pages of
        // the same layout; the pages carry the lines (the json is written in their task).
        let layout = "[name, {field: id, as: _id}, {field: city, at: /place/city}]"
        let pages = try #require(
            try Self.beside(
                """
                  - {file: shops.json, collection: shops, fields: \(layout)}
                  - {file: pages, format: pages, collection: shops, size: 10, key: name, fields: \(layout)}
                  - {file: shops.sqlite, collection: shops}
                """))
        #expect(pages.output == 1)
        #expect(pages.sources == [.copied(1), .copied(0), .copied(2), .rendered(Self.price)])
        // Pages whose layout places a field in an array are rendered by walking it: no frame.
        #expect(
            try Self.beside(
                "  - {file: pages, format: pages, collection: shops, size: 10, key: name, fields: [name, {field: id, at: /ids/0}]}"
            ) == nil)
    }

    @Test func outputsThatChangeValuesOrRenderNoFrameDoNot() throws {
        // Moved by a layout (a json not beside pages), filtered by `where`, rounded by fixed
        // decimals.
        #expect(
            try Self.beside(
                "  - {file: shops.json, collection: shops, fields: [{field: id, as: _id}, name, city, price]}")
                == nil)
        #expect(
            try Self.beside(
                """
                  - {file: lviv.json, collection: shops, where: {city: Lviv}}
                  - {file: shops.csv, collection: shops}
                """) == nil)
        #expect(try Self.beside("  - {file: shops.json, collection: shops, fixed-decimals: {price: 2}}") == nil)
        // Not a framed format.
        #expect(try Self.beside("  - {file: shops.csv, collection: shops}") == nil)
    }

    /// Beside an output when the threads are busy anyway (one thread, or more outputs than
    /// threads besides the snapshot) and on two threads; one output on three threads renders
    /// the snapshot on a thread of its own.
    @Test func theLinesAreCarriedWhenEveryThreadHasAnOutputOrOnTwoThreads() {
        #expect(SnapshotBeside.pays(outputs: 1, threads: 1))
        #expect(SnapshotBeside.pays(outputs: 1, threads: 2))
        #expect(SnapshotBeside.pays(outputs: 2, threads: 2))
        #expect(SnapshotBeside.pays(outputs: 4, threads: 2))
        #expect(!SnapshotBeside.pays(outputs: 1, threads: 3))
        #expect(!SnapshotBeside.pays(outputs: 2, threads: 3))
        #expect(SnapshotBeside.pays(outputs: 3, threads: 3))
        #expect(!SnapshotBeside.pays(outputs: 2, threads: 4))
    }
}
