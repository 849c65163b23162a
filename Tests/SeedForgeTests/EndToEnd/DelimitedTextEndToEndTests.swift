import Foundation
import Testing

@testable import SeedForge

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

    /// A file of a megabyte or more is hashed beside the merge of its records, on another
    /// thread when one is free: the manifest's hash is still that of the file's bytes, and
    /// the dataset the same with 1 thread or 3.
    @Test func aLargeFileIsHashedBesideItsRecordsAndTheManifestHoldsItsHash() throws {
        let dir = try TempDir()
        var rows = "id,name,population\n"
        for id in 0..<60_000 { rows += "\(id),Town \(id % 977),\(id % 1_000 == 0 ? "n/a" : String(id * 3))\n" }
        let csv = try dir.write("towns.csv", rows)
        #expect(rows.utf8.count >= 1 << 20)
        let pipeline = try dir.write(
            "towns.yml",
            """
            name: towns
            sources:
              towns:
                kind: csv
                path: towns.csv
                id: id
                fields: {id: integer, name: string, population: integer}
            outputs:
              - file: towns.ndjson
                collection: towns
            """)
        var datasets: [String] = []
        for threads in ["1", "3"] {
            let out = dir.path + "/out-" + threads
            let run = try CLI.run(["run", pipeline, "--out", out, "--threads", threads])
            #expect(run.status == 0, "\(run.stderr)")
            let manifest = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: URL(fileURLWithPath: out + "/towns/manifest.json")))
                    as? [String: Any])
            let inputs = try #require(manifest["inputs"] as? [[String: Any]])
            #expect(
                inputs.first?["sha256"] as? String == SHA256.hex(Array(try Data(contentsOf: URL(fileURLWithPath: csv))))
            )
            datasets.append(try String(contentsOfFile: out + "/towns/towns.ndjson", encoding: .utf8))
        }
        #expect(datasets[0] == datasets[1])
        #expect(datasets[0].split(separator: "\n").count == 60_000 - 60)
    }
}
