import Foundation
import Testing

@testable import SeedForge

@Suite("Enrich: lookup")
struct LookupTests {
    static func yaml(unmatched: String? = nil, take: String = "{tripName: name}") -> String {
        """
        name: l
        sources:
          places: {kind: json, path: places.json, id: id, fields: {id: string, tripId: string}}
          trips: {kind: json, path: trips.json, id: tid, fields: {tid: string, name: string, start: string, end: string}}
        steps:
          - validate: order
            collection: trips
            fields: [start, end]
          - enrich: lookup
            collection: places
            key: tripId
            from: trips
            from-key: tid
            take: \(take)
        \(unmatched.map { "    unmatched: \($0)\n" } ?? "")outputs:
          - {file: p.json, collection: places}
          - {file: t.json, collection: trips}
        thresholds: {max-reject-fraction: 1}
        """
    }

    static let files = [
        "places.json":
            #"[{"id":"p1","tripId":"t1"},{"id":"p2"},{"id":"p3","tripId":"t9"},{"id":"p4","tripId":"t2"},{"id":"p5","tripId":"t3"}]"#,
        "trips.json": """
        [{"tid":"t1","name":"Sydney","start":"2024-12-26","end":"2025-01-03"},
         {"tid":"t2","name":"Lisbon","start":"2026-05-10","end":"2026-05-03"},
         {"tid":"t3","name":"Alps","start":"2025-07-01","end":"2025-07-10"},
         {"tid":"t3","name":"Alps again","start":"2025-07-01","end":"2025-07-10"}]
        """,
    ]

    @Test func matchedKeysTakeFieldsAndBrokenReferencesAreFindings() throws {
        let result = try Harness.run(Self.yaml(), files: Self.files)
        let places = result.records("places")
        #expect(places.map { $0["id"]! } == [.string("p1"), .string("p2"), .string("p5")])
        #expect(places.map { $0["tripName"]! } == [.string("Sydney"), .null, .string("Alps")])  // no trip: null, no finding; t3 twice: the first
        let messages = result.rejects("places").map { $0.findings[0].message }
        #expect(
            messages == [
                #"tripId "t9" matches no tid of trips"#,
                #"tripId "t2" refers to a trips record that was rejected (see its entry in rejects)"#,
            ])
        #expect(result.rejects("places").first?.findings[0].location?.pointer == "/2/tripId")
        let warning = try #require(result.state.warnings.first)
        #expect(
            warning.collection == "trips"
                && warning.finding.message.contains(
                    #"tid "t3" appears more than once in trips; lookups use the first (trips.json:3:2)"#),
            "\(warning.finding.message)")
    }

    @Test func unmatchedCanWarnOrTakeDefaultsQuietly() throws {
        let warned = try Harness.run(Self.yaml(unmatched: "warn"), files: Self.files)
        #expect(warned.records("places").count == 5 && warned.rejects("places").isEmpty)
        #expect(warned.state.warnings.filter { $0.collection == "places" }.count == 2)
        let quiet = try Harness.run(
            Self.yaml(unmatched: "null", take: "{tripName: {field: name, default: none}}"), files: Self.files)
        #expect(
            quiet.records("places").map { $0["tripName"]! } == [
                .string("Sydney"), .string("none"), .string("none"), .string("none"), .string("Alps"),
            ])
        #expect(quiet.state.warnings.filter { $0.collection == "places" }.isEmpty)
    }

    @Test func derivedStatisticsCanBeLookedUpWithDefaults() throws {
        let result = try Harness.run(
            """
            name: s
            sources:
              places: {kind: json, path: places.json, fields: {tripId: string, visited: boolean}}
              trips: {kind: json, path: trips.json, fields: {id: string}}
            steps:
              - aggregate: group-stats
                collection: places
                by: tripId
                into: tripStats
                metrics: {places: count, visited: {count-where: visited}}
              - enrich: lookup
                collection: trips
                key: id
                from: tripStats
                from-key: tripId
                unmatched: null
                take: {places: {field: places, default: 0}, visited: {field: visited, default: 0}}
            outputs:
              - {file: t.json, collection: trips}
              - {file: p.json, collection: places}
              - {file: s.json, collection: tripStats}
            """,
            files: [
                "places.json":
                    #"[{"tripId":"a","visited":true},{"tripId":"a","visited":false},{"tripId":"b","visited":true}]"#,
                "trips.json": #"[{"id":"a"},{"id":"c"}]"#,
            ])
        #expect(
            result.records("trips").map { [$0["places"]!, $0["visited"]!] } == [
                [.int(2), .int(1)], [.int(0), .int(0)],
            ])
    }

    @Test func definitionMistakesAreErrors() {
        func messages(_ yaml: String) -> [String] { Harness.definitionErrors(yaml, files: Self.files).map(\.message) }
        #expect(messages(Self.yaml(unmatched: "drop")).contains { $0.contains("must be one of reject, warn, null") })
        #expect(
            messages(Self.yaml().replacingOccurrences(of: "    from-key: tid\n", with: "")).contains {
                $0.contains("'trips' has no field 'tripId'; name its key field with 'from-key'")
            })
        #expect(
            messages(Self.yaml(take: "{tripName: {field: name, default: 3, extra: 1}}")).contains {
                $0.contains("extra")
            })
        #expect(messages(Self.yaml(take: "{id: name}")).contains { $0.contains("already has a field 'id'") })
        #expect(
            messages(Self.yaml().replacingOccurrences(of: "from: trips", with: "from: places")).contains {
                $0.contains("'from' must name another collection")
            })
    }

    @Test func joinsMatchIntegralFloatsWithIntegers() throws {
        let yaml = LoaderTests.base
            .replacingOccurrences(
                of: "fields: {id: integer, itemID: integer, rating: number}",
                with: "fields: {id: integer, itemID: number, rating: number}"
            )
            .replacingOccurrences(
                of: "STEPS",
                with:
                    "  - {enrich: rating-summary, collection: items, key: id, from: reviews, foreign-key: itemID, rating: rating}"
            )
        let result = try Harness.run(
            yaml,
            files: [
                "data.json": #"[{"id": 7}]"#, "reviews.json": #"[{"id": 1, "itemID": 7.0, "rating": 4}]"#,
            ])
        #expect(result.records("items")[0]["reviewCount"] == .int(1))
        #expect(result.rejects("reviews").isEmpty)
    }

    @Test func fromOutsideEnrichStepsNamesFieldsNotCollections() {
        let errors = Harness.definitionErrors(
            """
            name: k
            sources:
              places: {kind: json, path: data.json, fields: {id: string, kind: string}}
              kind: {kind: json, path: data.json, fields: {id: string}}
            steps:
              - {aggregate: append, collection: kind, into: places}
              - {normalize: search-key, collection: places, from: kind, field: kindKey}
            outputs:
              - {file: p.json, collection: places}
            """)
        #expect(errors.isEmpty, "\(errors)")
    }
}
