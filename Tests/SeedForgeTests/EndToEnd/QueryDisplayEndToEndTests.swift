import Foundation
import Testing

/// Issue 18: `seedforge query` printed `Deza, , ES` when a display field was null; null
/// and empty display fields are left out.
@Suite("End to end: query display lines", .serialized)
struct QueryDisplayEndToEndTests {
    @Test func nullDisplayFieldsAreSkipped() throws {
        let dir = try TempDir()
        let run = try CLI.run(["run", "Fixtures/towns/towns.yml", "--out", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let query = try CLI.run(["query", dir.path + "/towns", "de"])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout == "Denia, Valencia, ES\nDessau, DE\nDeza, ES\nDeza, Castile and León, ES\n")
        #expect(!query.stdout.contains(", ,"))
    }

    /// search-key `apostrophes: drop` and `punctuation: space`, recorded in the index's
    /// meta.json so the query folds a typed prefix the same way.
    @Test func foldedPunctuationFindsNamesTypedWithoutIt() throws {
        let dir = try TempDir()
        let run = try CLI.run(["run", "Fixtures/towns/towns.yml", "--out", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        for prefix in ["laq", "l'aq", "L’Aq"] {
            #expect(
                try CLI.run(["query", dir.path + "/towns", prefix]).stdout == "L’Aquila, Abruzzo, IT\n", "\(prefix)")
        }
        for prefix in ["saint m", "Saint-M", "saint-malo"] {
            #expect(
                try CLI.run(["query", dir.path + "/towns", prefix]).stdout == "Saint-Malo, Brittany, FR\n", "\(prefix)")
        }
        let meta = try dir.read("towns/prefix-index/meta.json")
        #expect(meta.contains(#""apostrophes": "drop""#) && meta.contains(#""punctuation": "space""#), "\(meta)")
    }
}
