import Foundation
import Testing

@testable import SeedForge

/// Output field layout through the real binary: the two app shapes in json, ndjson and
/// pages, the prefix index and `seedforge query` over laid-out pages, byte-identical
/// reruns, `seedforge kinds json`, and pipeline tests that expect the mapped shape.
@Suite("End to end: output field layout")
struct FieldLayoutEndToEndTests {
    static let pipeline = """
        name: shapes
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
              longitude: {type: number, from: /coord/lon}
        steps:
          - {normalize: search-key, collection: cities, from: name, field: searchKey}
          - aggregate: sort
            collection: cities
            by: [{field: searchKey, collation: exact}, country, id]
        outputs:
          - file: cities.json                   # the map app's own shape
            collection: cities
            fields: [country, name, {field: id, as: _id}, {field: longitude, at: /coord/lon}, {field: latitude, at: /coord/lat}]
          - file: cities.ndjson
            collection: cities
            fields: [name, {field: latitude, at: /coordinates/0}, {field: longitude, at: /coordinates/1}]
          - file: flat.json                     # the flat shape, unchanged
            collection: cities
          - file: cities.csv
            collection: cities
            fields: [name, country, latitude, longitude]
          - file: pages
            format: pages
            collection: cities
            size: 2
            key: searchKey
            fields: [{field: name, at: /city/name}, {field: country, at: /city/country}, {field: id, as: _id}]
          - file: index
            format: prefix-index
            collection: cities
            key: searchKey
            pages: pages
            display: [name, country]
        """

    static let cities = """
        [{"country": "UA", "name": "Hurzuf", "_id": 707860, "coord": {"lon": 34.283333, "lat": 44.549999}},
         {"country": "US", "name": "Alabama", "_id": 4829764, "coord": {"lon": -86.750259, "lat": 32.750408}},
         {"country": "US", "name": "Albuquerque", "_id": 5454711, "coord": {"lon": -106.651138, "lat": 35.084492}}]
        """

    static func dataset() throws -> TempDir {
        let dir = try TempDir()
        try dir.write("shapes.yml", pipeline)
        try dir.write("cities.json", cities)
        let result = try CLI.run(["run", "shapes.yml", "--out", "out", "--quiet"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        return dir
    }

    @Test func theAppShapesAreWrittenAndTheFlatOnesStay() throws {
        let dir = try Self.dataset()
        let json = try dir.read("out/shapes/cities.json")
        #expect(
            json.hasPrefix(
                """
                [
                  {
                    "country": "US",
                    "name": "Alabama",
                    "_id": 4829764,
                    "coord": {
                      "lon": -86.750259,
                      "lat": 32.750408
                    }
                  },
                """))
        // The challenge's own records, read back by JSONSerialization, equal the input's.
        let written = try #require(jsonObject(dir.bytes("out/shapes/cities.json")) as? [NSDictionary])
        let input = try #require(jsonObject(Data(Self.cities.utf8)) as? [NSDictionary])
        #expect(Set(written) == Set(input))
        #expect(
            try dir.read("out/shapes/cities.ndjson").split(separator: "\n").first
                == #"{"name":"Alabama","coordinates":[32.750408,-86.750259]}"#)
        let flat = try #require(jsonObject(dir.bytes("out/shapes/flat.json")) as? [[String: Any]])
        #expect(flat.first?.keys.sorted() == ["country", "id", "latitude", "longitude", "name", "searchKey"])
        #expect(
            try dir.read("out/shapes/cities.csv").hasPrefix(
                "name,country,latitude,longitude\r\nAlabama,US,32.750408,-86.750259\r\n"))
        #expect(
            try dir.read("out/shapes/pages/1.json").contains(
                "\"city\": {\n      \"name\": \"Alabama\",\n      \"country\": \"US\"\n    },\n    \"_id\": 4829764"))
    }

    @Test func queryReadsDisplayFieldsFromLaidOutPages() throws {
        let dir = try Self.dataset()
        let meta = try #require(jsonObject(dir.bytes("out/shapes/index/meta.json")) as? [String: Any])
        #expect(meta["display"] as? [String] == ["/city/name", "/city/country"])
        let text = try CLI.run(["query", "out/shapes", "al"], cwd: dir.path)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout == "Alabama, US\nAlbuquerque, US\n")
        let json = try CLI.run(["query", "out/shapes", "hu", "--format", "json"], cwd: dir.path)
        let records = try #require(jsonObject(Data(json.stdout.utf8)) as? [[String: Any]])
        #expect((records.first?["city"] as? [String: Any])?["name"] as? String == "Hurzuf")
        #expect(records.first?["_id"] as? Int == 707860)
    }

    @Test func rerunsAreByteIdentical() throws {
        let dir = try Self.dataset()
        let first = ShippedDatasetsGoldenTests.files(in: dir.url.appendingPathComponent("out/shapes"))
        let before = try first.filter { $0 != "manifest.json" }.map { try dir.bytes("out/shapes/" + $0) }
        for threads in ["1", "3"] {
            let again = try CLI.run(
                ["run", "shapes.yml", "--out", "out", "--quiet", "--threads", threads], cwd: dir.path)
            #expect(again.status == 0)
            #expect(try first.filter { $0 != "manifest.json" }.map { try dir.bytes("out/shapes/" + $0) } == before)
        }
    }

    @Test func kindsJsonShowsBothAppShapes() throws {
        let result = try CLI.run(["kinds", "json"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("{field: NAME, as: KEY}"))
        #expect(result.stdout.contains("{field: latitude, at: /coordinates/0}"))
        #expect(
            result.stdout.contains(
                "{field: id, as: _id}, {field: longitude, at: /coord/lon}, {field: latitude, at: /coord/lat}"))
    }

    @Test func pipelineTestsExpectAnOutputFilesRecordsInItsShape() throws {
        let dir = try TempDir()
        try dir.write("shapes.yml", Self.pipeline)
        try dir.write("cities.json", "[]")
        try dir.write(
            "shapes.test.yml",
            """
            cases:
              - name: the app's shape
                input:
                  cities:
                    - {country: UA, name: Hurzuf, _id: 707860, coord: {lon: 34.28, lat: 44.55}}
                expect:
                  cities: [{id: 707860, latitude: 44.55}]
                  cities.json: [{_id: 707860, coord: {lat: 44.55}}]
                  cities.ndjson: [{coordinates: [44.55, 34.28]}]
                  pages: 1
              - name: a wrong shape fails
                input:
                  cities:
                    - {country: UA, name: Hurzuf, _id: 707860, coord: {lon: 34.28, lat: 44.55}}
                expect:
                  cities.json: [{id: 707860, coord: {lat: 34.28}}]
            """)
        let result = try CLI.run(["test", "shapes.yml"], cwd: dir.path)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("PASS shapes.test.yml:2: the app's shape"), "\(result.stdout)")
        #expect(
            result.stdout.contains("cities.json[0]: there is no field 'id'; did you mean '_id'?"), "\(result.stdout)")
        #expect(
            result.stdout.contains(#"cities.json[0].coord: expected {"lat":34.28}, got {"lon":34.28,"lat":44.55}"#),
            "\(result.stdout)")

        try dir.write(
            "shapes.test.yml",
            """
            cases:
              - name: an index holds no records
                input: {cities: []}
                expect: {index: 0}
            """)
        let index = try CLI.run(["test", "shapes.yml"], cwd: dir.path)
        #expect(index.status == 2)
        #expect(index.stderr.contains("'index' is a prefix index, which holds keys, not records"), "\(index.stderr)")
    }
}
