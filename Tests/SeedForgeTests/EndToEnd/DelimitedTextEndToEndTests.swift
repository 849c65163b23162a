import Foundation
import Testing

/// Issue 14: a GeoNames dump excerpt (tsv) and a spreadsheet's CSV export, with malformed
/// rows, through the real command line.
@Suite("End to end: csv and tsv sources", .serialized)
struct DelimitedTextEndToEndTests {
    @Test func runKeepsGoodRowsAndRejectsEachMalformedOneWithItsPlace() throws {
        let dir = try TempDir()
        let run = try CLI.run(["run", "Fixtures/geonames/geonames.yml", "--out", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let cities = try #require(try jsonObject(dir.bytes("geonames/cities.json")) as? [[String: Any]])
        #expect(
            cities.map { $0["name"] as? String } == [
                "Berlin", "Kaka\"ako", "Kraków", "les Escaldes", "Paris", "Prague", "Tokyo", "Zürich",
            ])
        #expect(cities.first?["alternateNames"] as? [String] == ["Berlin", "Berlino", "Berlín", "Берлин"])
        let capitals = try #require(try jsonObject(dir.bytes("geonames/capitals.json")) as? [[String: Any]])
        #expect(capitals.count == 5)
        let rejects = try dir.read("geonames/rejects.ndjson").split(separator: "\n")
        #expect(rejects.count == 11)
        #expect(
            rejects.contains {
                $0.contains(#""rule":"csv-columns""#)
                    && $0.contains(#""file":"cities500-excerpt.txt","line":7,"column":72"#)
            })
        #expect(
            rejects.contains {
                $0.contains(#""rule":"type""#)
                    && $0.contains(#""file":"capitals.csv","line":11,"column":19,"pointer":"/population""#)
            })
        // The city list keyed by id: findings point at the key (`/291074/name`).
        #expect(rejects.contains { $0.contains(#""rule":"type""#) && $0.contains(#""pointer":"/291074/name""#) })
        let keyed = try #require(try jsonObject(dir.bytes("geonames/keyed-cities.json")) as? [[String: Any]])
        #expect(keyed.map { $0["id"] as? Int } == [3_040_051, 3_041_563, 290_594, 292_223])
        let manifest = try dir.read("geonames/manifest.json")
        #expect(manifest.contains("cities500-excerpt.txt") && manifest.contains("capitals.csv"))
    }

    @Test func pipelineTestsAndValidationPointAtTheRows() throws {
        let test = try CLI.run(["test", "Fixtures/geonames/geonames.yml"])
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
        #expect(test.stdout.contains("2 passed, 0 failed"))
        let validate = try CLI.run(["validate", "Fixtures/geonames/geonames.yml", "--format", "github"])
        #expect(validate.status == 1)
        #expect(validate.stdout.contains("file=Fixtures/geonames/capitals.csv,line=7,col=45"), "\(validate.stdout)")
        #expect(validate.stdout.contains("is its closing quote missing?"))
    }
}
