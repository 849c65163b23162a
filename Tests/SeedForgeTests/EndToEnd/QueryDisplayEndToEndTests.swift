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
}
