import Testing

@testable import SeedForge

/// Which output renders a collection's snapshot lines beside its records: only one that
/// writes every record as it is, in a frame, and every field the snapshot keeps. Any other
/// would give the snapshot values it does not hold (filtered, rounded, moved or missing).
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
        return SnapshotBeside.find(for: shops, in: pipeline, schema: pipeline.schemas[loaded: shops])
    }

    @Test func aJSONOrNDJSONOutputOfEveryFieldCarriesTheLines() throws {
        let json = try #require(try Self.beside("  - {file: shops.json, collection: shops}"))
        #expect(json.output == 0)
        #expect(json.positions == [0, 1, 2, 3])
        // The first output that qualifies; fields in another order map to their positions.
        let ndjson = try #require(
            try Self.beside(
                """
                  - {file: shops.csv, collection: shops}
                  - {file: shops.ndjson, collection: shops, fields: [price, city, name, id]}
                """))
        #expect(ndjson.output == 1)
        #expect(ndjson.positions == [3, 2, 1, 0])
    }

    @Test func outputsThatChangeOrLeaveOutValuesDoNot() throws {
        // A field the snapshot keeps (written by the csv) is not in the json.
        #expect(
            try Self.beside(
                """
                  - {file: shops.json, collection: shops, fields: [id, name, city]}
                  - {file: shops.csv, collection: shops}
                """) == nil)
        // Moved by a layout, filtered by `where`, rounded by fixed decimals.
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
