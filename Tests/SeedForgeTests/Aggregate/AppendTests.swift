import Foundation
import Testing

@testable import SeedForge

/// `aggregate: append`, `reference: true` sources and dedupe's `fill`: two sources of the
/// same things meet in one collection without a record or a location being lost.
@Suite("Aggregate: append, reference sources, dedupe fill")
struct AppendTests {
    static let yaml = """
        name: a
        sources:
          places:
            kind: json
            path: app.json
            id: id
            fields: {id: string, name: string, lat: number, rating: number}
          api:
            kind: json
            path: api.json
            records: /results
            id: id
            fields:
              id: {type: string, from: /place_id}
              name: string
              lat: {type: number, from: /geometry/location/lat}
              rating: {type: integer, from: /rating}
              types: array
        steps:
          - aggregate: append
            collection: api
            into: places
            drop: [types]
          - validate: range
            collection: places
            field: lat
            min: -90
            max: 90
          - aggregate: dedupe
            collection: places
            by: name
            fill: [rating]
        outputs:
          - {file: p.json, collection: places}
        thresholds: {max-reject-fraction: 1}
        """

    static let files = [
        "app.json": #"[{"id":"a1","name":"Opera","lat":-33.85},{"id":"a2","name":"Bondi","lat":-33.89,"rating":5}]"#,
        "api.json": """
        {"results": [
          {"place_id": "g1", "name": "Opera", "geometry": {"location": {"lat": -33.8568}}, "rating": 4, "types": ["museum"]},
          {"place_id": "g2", "name": "Tamarama",
           "geometry": {"location": {"lat": 133.9}}, "types": []}
        ]}
        """,
    ]

    @Test func recordsMoveAfterTheTargetsOwnWithFieldsMatchedByName() throws {
        let result = try Harness.run(Self.yaml, files: Self.files)
        #expect(result.records("places").map { $0["id"]! } == [.string("a1"), .string("a2")])
        #expect(result.records("places")[0]["rating"] == .int(4))  // filled from the API's duplicate
        #expect(result.records("api").isEmpty)
        let duplicate = try #require(result.state.duplicates.first)
        #expect(duplicate.id == .string("g1") && duplicate.winnerID == .string("a1") && duplicate.filled == ["rating"])
        // A finding on an appended record points at its own file and its own source path.
        let reject = try #require(result.rejects("places").first)
        #expect(reject.id == .string("g2"))
        let location = try #require(reject.findings[0].location)
        #expect(
            location.file.hasSuffix("api.json") && location.line == 4
                && location.pointer == "/results/1/geometry/location/lat", "\(location)")
        // Accounting of places: 2 read + 2 received = 2 emitted + 1 rejected + 1 duplicate.
        let places = try #require(result.counts.first { $0.collection == "places" })
        #expect((places.read, places.received, places.emitted, places.rejected, places.duplicates) == (2, 2, 2, 1, 1))
        let api = try #require(result.counts.first { $0.collection == "api" })
        #expect((api.read, api.appended, api.emitted) == (2, 2, 0))
    }

    @Test func theManifestCountsAppendedAndReferenceRecords() throws {
        let dir = try TempDir()
        for (name, text) in Self.files { try dir.write(name, text) }
        try dir.write("cities.json", #"[{"id":1,"name":"Sydney"},{"id":2,"name":null}]"#)
        let yaml = Self.yaml.replacingOccurrences(
            of: "steps:\n",
            with: """
                  cities:
                    kind: json
                    path: cities.json
                    reference: true
                    fields: {id: integer, name: string}
                steps:
                  - validate: required
                    collection: cities
                    field: name

                """)
        try dir.write("p.yml", yaml)
        let run = try CLI.run(["run", "p.yml", "--out", "o"], cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("a: wrote 2 places"), "\(run.stdout)")
        let manifest = try #require(jsonObject(dir.bytes("o/a/manifest.json")) as? [String: Any])
        let accounting = try #require(manifest["accounting"] as? [String: [String: Any]])
        #expect(accounting["places"]?["received"] as? Int == 2 && accounting["places"]?["balanced"] as? Bool == true)
        #expect(accounting["api"]?["appended"] as? Int == 2)
        #expect(
            accounting["cities"]?["reference"] as? Int == 1 && accounting["cities"]?["rejected"] as? Int == 1
                && accounting["cities"]?["emitted"] as? Int == 0)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/o/a/cities.json"))
        #expect(try dir.read("o/a/rejects.ndjson").contains(#""collection":"cities""#))
    }

    @Test func definitionMistakesAreErrors() {
        func messages(_ yaml: String) -> [String] { Harness.definitionErrors(yaml, files: Self.files).map(\.message) }
        #expect(
            messages(Self.yaml.replacingOccurrences(of: "    drop: [types]\n", with: ""))
                .contains {
                    $0.contains("'places' has no field 'types' of 'api'") && $0.contains("list it under 'drop'")
                })
        #expect(
            messages(Self.yaml.replacingOccurrences(of: "drop: [types]", with: "drop: [types, name]"))
                .contains { $0.contains("'name' is a field of 'places' too") })
        #expect(
            messages(
                Self.yaml.replacingOccurrences(
                    of: "rating: {type: integer, from: /rating}", with: "rating: {type: string, from: /rating}")
            )
            .contains { $0.contains("field 'rating' is string in 'api' but number in 'places'") })
        let laterStep = Self.yaml.replacingOccurrences(
            of: "  - validate: range\n    collection: places", with: "  - validate: range\n    collection: api")
        #expect(
            messages(laterStep).contains {
                $0.contains("the records of 'api' were appended to 'places' by an earlier step")
            })
        let output = Self.yaml.replacingOccurrences(
            of: "  - {file: p.json, collection: places}",
            with: "  - {file: p.json, collection: places}\n  - {file: q.json, collection: api}")
        #expect(messages(output).contains { $0.contains("the records of 'api' are appended to 'places' by a step") })
        #expect(
            messages(
                Self.yaml.replacingOccurrences(of: "by: name\n    fill: [rating]", with: "by: name\n    fill: [name]")
            )
            .contains { $0.contains("'name' is part of the key 'by'") })
    }

    @Test func acrossMergesOnlyRecordsThatDifferInTheField() throws {
        let result = try RuleHarness.run(
            fields: "id: string\nname: string\nsource: string\nlat: number\nlon: number",
            steps: """
                - aggregate: dedupe
                  collection: items
                  by: name
                  across: source
                  within: {latitude: lat, longitude: lon, km: 0.1}
                - aggregate: dedupe
                  collection: items
                  by: id
                  across: source
                """,
            records: """
                [{"id":"a1","name":"Bondi","source":"app","lat":-33.8915,"lon":151.2767},
                 {"id":"a2","name":"Bondi","source":"app","lat":-33.8915,"lon":151.2766},
                 {"id":"g1","name":"Bondi","source":"api","lat":-33.8916,"lon":151.2767},
                 {"id":"g2","name":"Bondi","source":"api","lat":-33.8900,"lon":151.2767},
                 {"id":"x","name":"Opera","source":"app","lat":1,"lon":1},
                 {"id":"x","name":"Opera copy","source":"app","lat":1,"lon":1}]
                """)
        // a1 and a2 (both the app's) stay apart; g1 merges into a1 (11 m); g2 is 167 m away.
        #expect(result.records("items").map { $0["id"]! } == ["a1", "a2", "g2", "x", "x"].map(Value.string))
        #expect(
            result.state.duplicates.map { "\($0.id!) \($0.winnerID!) \($0.distanceKm ?? -1)" } == [
                #"string("g1") string("a1") 0.011"#
            ])
    }

    @Test func aReferenceSourceNeedsNoOutputButAnOrdinaryOneDoes() {
        let base = """
            name: r
            sources:
              items: {kind: json, path: data.json, fields: {id: integer}}
              lookup: {kind: json, path: data.json, REF fields: {id: integer}}
            outputs:
              - {file: i.json, collection: items}
            """
        #expect(Harness.definitionErrors(base.replacingOccurrences(of: "REF ", with: "reference: true, ")).isEmpty)
        #expect(
            Harness.definitionErrors(base.replacingOccurrences(of: "REF ", with: "")).first?.message.contains(
                "collection 'lookup' is never written") == true)
    }

    static let three = """
        name: c
        sources:
          a: {kind: json, path: a.json, fields: {id: string}}
          b: {kind: json, path: b.json, fields: {id: string}}
          c: {kind: json, path: c.json, fields: {id: string}}
        steps:
          - {aggregate: append, collection: a, into: b}
          - {aggregate: append, collection: c, into: a}
        outputs:
          - {file: b.json, collection: b}
        """

    @Test func appendingIntoACollectionAlreadyAppendedElsewhereIsAnError() {
        let errors = Harness.definitionErrors(Self.three, files: ["a.json": "[]", "b.json": "[]", "c.json": "[]"]).map(
            \.message)
        #expect(
            errors.contains {
                $0.contains(
                    "the records of 'a' were appended to 'b' by an earlier step, so records appended to 'a' now would never be written; append into 'b'"
                )
            }, "\(errors)")
    }

    @Test func aComputedFieldNamedLikeADroppedSourceFieldPointsAtTheRecord() throws {
        let result = try Harness.run(
            """
            name: d
            sources:
              places: {kind: json, path: app.json, fields: {id: string}}
              nearby: {kind: json, path: api.json, records: /results, fields: {id: {type: string, from: /place_id}, city: {type: string, from: /vicinity}}}
            steps:
              - {aggregate: append, collection: nearby, into: places, drop: [city]}
              - {normalize: set, collection: places, fields: {city: {type: string, value: null}}}
              - {validate: required, collection: places, field: city}
            outputs:
              - {file: p.json, collection: places}
            thresholds: {max-reject-fraction: 1}
            """, files: ["app.json": "[]", "api.json": #"{"results": [{"place_id": "g1", "vicinity": ""}]}"#])
        let finding = try #require(result.rejects("places").first?.findings.first)
        #expect(finding.message == "city is required but missing", "\(finding.message)")
        #expect(
            finding.location?.pointer == "/results/0" && finding.value == .null,
            "\(String(describing: finding.location))")
    }

    /// Appends in a chain: `nearby` drops `city` into `places`, which computes its own
    /// `city` and is appended into `all`, whose source declares `city`. The computed value
    /// of a `nearby` record is not where `nearby`'s file says `city` is, and a field the
    /// source kept is still found there after both moves.
    @Test func aChainOfAppendsFindsOnlyTheFieldsEachMoveCarried() throws {
        let result = try Harness.run(
            """
            name: d
            sources:
              all: {kind: json, path: all.json, fields: {id: string, city: string, rating: number}}
              places: {kind: json, path: app.json, fields: {id: string, rating: number}}
              nearby: {kind: json, path: api.json, records: /results, fields: {id: {type: string, from: /place_id}, city: {type: string, from: /vicinity}, rating: number}}
            steps:
              - {validate: required, collection: nearby, field: city, severity: warning}
              - {aggregate: append, collection: nearby, into: places, drop: [city]}
              - {normalize: set, collection: places, fields: {city: {type: string, value: null}}}
              - {aggregate: append, collection: places, into: all}
              - {validate: required, collection: all, field: city}
              - {validate: range, collection: all, field: rating, max: 5}
            outputs:
              - {file: a.json, collection: all}
            thresholds: {max-reject-fraction: 1}
            """,
            files: [
                "all.json": "[]", "app.json": "[]",
                "api.json": "{\"results\": [\n  {\"place_id\": \"g1\", \"vicinity\": \"\",\n   \"rating\": 7}]}",
            ])
        // Before the move, the dropped field is still found in its own file.
        let warning = try #require(result.state.warnings.first?.finding.location)
        #expect(warning.pointer == "/results/0/vicinity" && warning.line == 2, "\(warning)")
        let findings = try #require(result.rejects("all").first?.findings)
        let city = try #require(findings.first { $0.rule == "required" })
        #expect(city.location?.pointer == "/results/0", "\(String(describing: city.location))")
        let rating = try #require(findings.first { $0.rule == "range" })
        #expect(
            rating.location?.pointer == "/results/0/rating" && rating.location?.line == 3,
            "\(String(describing: rating.location))")
    }

    @Test func referenceDataWithAnOutputIsCountedAsEmitted() throws {
        let dir = try TempDir()
        try dir.write("a.json", #"[{"id":"x"},{"id":"y"}]"#)
        try dir.write(
            "p.yml",
            """
            name: r
            sources:
              a: {kind: json, path: a.json, reference: true, fields: {id: string}}
              b: {kind: json, path: a.json, reference: true, fields: {id: string}}
            outputs:
              - {file: a.json, collection: a}
            """)
        let run = try CLI.run(["run", "p.yml", "--out", "o"], cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("r: wrote 2 a to"), "\(run.stdout)")
        let accounting = try #require(
            (jsonObject(dir.bytes("o/r/manifest.json")) as? [String: Any])?["accounting"] as? [String: [String: Any]])
        #expect(accounting["a"]?["emitted"] as? Int == 2 && accounting["a"]?["reference"] == nil)
        #expect(accounting["b"]?["reference"] as? Int == 2 && accounting["b"]?["emitted"] as? Int == 0)
    }

    @Test func acrossNeverMergesTwoRecordsOfOneSideWhateverTheKeepOrder() throws {
        for keep in ["keep: first", "keep: last", "keep: highest, keep-by: rating"] {
            let result = try RuleHarness.run(
                fields: "id: string\nplaceId: string\nsource: string\nrating: number",
                steps: "- {aggregate: dedupe, collection: items, by: placeId, across: source, \(keep)}",
                records:
                    #"[{"id":"app-1","placeId":"X","source":"app","rating":3},{"id":"app-2","placeId":"X","source":"app","rating":4},{"id":"api-1","placeId":"X","source":"api","rating":5}]"#
            )
            // One app record pairs with the API record; the other app record is never
            // merged with it (before the fix, with last or highest both went to the API's).
            let kept = result.records("items").map { $0["id"]!.string! }
            #expect(kept.count == 2 && kept.contains { $0.hasPrefix("app") }, "\(keep): \(kept)")
            #expect(result.state.duplicates.count == 1, "\(keep)")
        }
    }

    @Test func aFieldTheTargetComputesButTheAppendedSourceReadsPointsAtTheSourceValue() throws {
        let result = try Harness.run(
            """
            name: l
            sources:
              places: {kind: json, path: app.json, fields: {id: string}}
              nearby: {kind: json, path: api.json, records: /results, fields: {id: {type: string, from: /place_id}, publicRating: {type: number, from: /rating}}}
            steps:
              - {normalize: set, collection: places, fields: {publicRating: {type: number, value: null}}}
              - {aggregate: append, collection: nearby, into: places}
              - {validate: range, collection: places, field: publicRating, max: 4.5}
            outputs:
              - {file: p.json, collection: places}
            thresholds: {max-reject-fraction: 1}
            """,
            files: ["app.json": "[]", "api.json": "{\"results\": [\n  {\"place_id\": \"g1\",\n   \"rating\": 4.8}]}"])
        let location = try #require(result.rejects("places").first?.findings.first?.location)
        #expect(location.pointer == "/results/0/rating" && location.line == 3 && location.column == 14, "\(location)")
    }
}
