import Foundation
import Testing

@testable import SeedForge

/// Parallel parsing and steps must give exactly what one thread gives.
@Suite("End to end: thread counts")
struct ThreadsTests {
    /// A dump of about 1.7 MB (large enough to be split between threads), with dirt spread
    /// through it, including a name with the `},{` look-alike that could fool a split.
    static func dump() -> String {
        var lines: [String] = []
        for id in 0..<12_000 {
            var name = "City \(id % 9_000) Ünïcode"
            if id % 997 == 0 { name = "  " }
            if id % 1_231 == 0 { name = "Tricky },{ name \(id)" }
            let lat = id % 1_777 == 0 ? "95.5" : String(Double(id % 180) - 89.5)
            let identifier = id == 9_001 ? "\"x9001\"" : String(id)
            lines.append(
                #"{"_id": \#(identifier), "name": "\#(name)", "country": "UA", "coord": {"lat": \#(lat), "lon": 10.5}, "padding": "\#(String(repeating: "p", count: 40))"}"#
            )
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n]\n"
    }

    static let pipeline = """
        name: many
        sources:
          cities:
            kind: json
            path: cities.json
            id: id
            fields:
              id: {type: integer, from: /_id}
              name: string
              country: string
              latitude: {type: number, from: /coord/lat}
        steps:
          - {normalize: trim, collection: cities, collapse-whitespace: true}
          - {validate: required, collection: cities, field: name}
          - {validate: range, collection: cities, field: latitude, min: -90, max: 90}
          - {normalize: search-key, collection: cities, from: name, field: searchKey}
          - {aggregate: dedupe, collection: cities, by: [searchKey, country, latitude], keep: lowest, keep-by: id}
          - aggregate: sort
            collection: cities
            by: [{field: searchKey, collation: exact}, country, id]
        outputs:
          - {file: cities.json, collection: cities}
          - {file: cities.csv, collection: cities}
          - {file: pages, format: pages, collection: cities, size: 500, key: searchKey}
        thresholds: {max-reject-fraction: 1}
        """

    @Test func oneAndTwoThreadsGiveIdenticalDatasets() throws {
        let dir = try TempDir()
        try dir.write("many.yml", Self.pipeline)
        try dir.write("cities.json", Self.dump())
        for threads in ["1", "2", "3"] {
            let result = try CLI.run(["run", "many.yml", "--out", "t\(threads)", "--threads", threads], cwd: dir.path)
            #expect(result.status == 0, "\(result.stderr)")
        }
        var one = try HoneyShopsEndToEndTests.snapshot(dir.path + "/t1/many")
        one.removeValue(forKey: "manifest.json")
        for threads in ["2", "3"] {
            var other = try HoneyShopsEndToEndTests.snapshot(dir.path + "/t\(threads)/many")
            other.removeValue(forKey: "manifest.json")
            #expect(other == one, "\(threads) threads differ from one")
        }
        // The bad id deep in the file has its exact global pointer and line.
        let rejects = try dir.read("t2/many/rejects.ndjson")
        #expect(
            rejects.contains(
                #""id":"x9001","rule":"type","severity":"error","message":"field 'id' must be an integer, found string \"x9001\"","file":"cities.json","line":9003,"column":9,"pointer":"/9001/_id""#
            ))
    }

    /// The side outputs are tasks of the outputs' loop, run on whichever thread is free: the
    /// manifest still lists the outputs in the pipeline's order, then rejects, duplicates,
    /// warnings, the snapshot and the changes, each with the size and SHA-256 of the file
    /// written, whatever the thread count.
    @Test func sideOutputsAreListedInOrderWithTheirFilesHashes() throws {
        let dir = try TempDir()
        try dir.write("many.yml", Self.pipeline)
        try dir.write("cities.json", Self.dump())
        for threads in ["1", "3"] {
            let result = try CLI.run(["run", "many.yml", "--out", "s\(threads)", "--threads", threads], cwd: dir.path)
            #expect(result.status == 0, "\(result.stderr)")
            let folder = dir.path + "/s\(threads)/many/"
            let manifest = try #require(
                JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "manifest.json")))
                    as? [String: Any])
            let outputs = try #require(manifest["outputs"] as? [[String: Any]])
            #expect(
                outputs.map { $0["file"] as? String } == [
                    "cities.json", "cities.csv", "pages", "rejects.ndjson", "duplicates.ndjson", "warnings.ndjson",
                    "snapshot.ndjson", "changes.ndjson",
                ])
            for side in outputs.dropFirst(3).prefix(3) {
                let name = try #require(side["file"] as? String)
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + name)))
                #expect(side["bytes"] as? Int == bytes.count, "\(name)")
                #expect(side["sha256"] as? String == SHA256.hex(bytes), "\(name)")
            }
            #expect(outputs[3]["records"] as? Int ?? 0 > 0)
            #expect(outputs[4]["records"] as? Int ?? 0 > 0)
        }
    }
}
