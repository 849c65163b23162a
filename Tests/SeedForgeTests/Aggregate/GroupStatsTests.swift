import Foundation
import Testing

@testable import SeedForge

@Suite("Aggregate group-stats")
struct GroupStatsTests {
    @Test func groupStatisticsAreComputedPerGroup() throws {
        let result = try Harness.run(
            """
            name: g
            sources:
              places: {kind: json, path: data.json, fields: {trip: string, rating: number, visited: boolean, date: string}}
            steps:
              - aggregate: group-stats
                collection: places
                by: trip
                into: trips
                metrics:
                  places: count
                  visited: {count-where: visited}
                  meanVisitedRating: {mean: rating, where: visited}
                  first: {min: date, where: visited}
                  last: {max: date, where: visited}
            outputs:
              - {file: p.json, collection: places}
              - {file: t.json, collection: trips}
            thresholds: {max-reject-fraction: 1}
            """,
            files: [
                "data.json": """
                [{"trip":"b","rating":4,"visited":true,"date":"2025-06-03"},{"trip":"a","rating":5,"visited":true,"date":"2025-05-01"},
                 {"trip":"b","rating":1,"visited":false},{"trip":"b","rating":3,"visited":true,"date":"2025-06-01"},{"trip":"a","visited":false}]
                """
            ])
        let trips = result.records("trips")
        #expect(trips.map { $0["trip"] } == [.string("a"), .string("b")])
        #expect(trips[1]["places"] == .int(3))
        #expect(trips[1]["visited"] == .int(2))
        #expect(trips[1]["meanVisitedRating"] == .double(3.5))
        #expect(trips[1]["first"] == .string("2025-06-01"))
        #expect(trips[1]["last"] == .string("2025-06-03"))
        #expect(trips[0]["meanVisitedRating"] == .double(5))
        #expect(result.counts.map(\.collection) == ["places"])  // derived collections read nothing
    }

    @Test func derivedCollectionsTakeNoValidateOrNormalizeSteps() {
        let messages = ItemsPipeline.errors(
            steps: ItemsPipeline.stats + """

                  - {validate: range, collection: cities, field: n, min: 1}
                """,
            outputs: """
                  - {file: all.json, collection: items}
                  - {file: cities.json, collection: cities}
                """)
        #expect(messages.contains { $0.contains("'cities' is made by group-stats") }, "\(messages)")
    }

    @Test func metricsAreCheckedAgainstTheirFields() {
        let outputs = """
              - {file: all.json, collection: items}
              - {file: cities.json, collection: cities}
            """
        func check(_ metrics: String, _ expected: String) {
            let messages = ItemsPipeline.errors(
                steps: """
                      - {aggregate: group-stats, collection: items, by: city, into: cities, metrics: \(metrics)}
                    """, outputs: outputs)
            #expect(messages.contains { $0.contains(expected) }, "\(metrics): \(messages)")
        }
        check("{x: {mean: rating, max: rating}}", "has mean and max; give each statistic its own metric name")
        check(
            "{x: {mean: name}}",
            "mean in metric 'x' needs a field of type decimal or integer or number; 'name' is string")
        check("{x: {count-where: rating}}", "count-where in metric 'x' needs a field of type boolean")
        check("{x: {count-where: open, where: open}}", "count-where already names its condition")
        check("{x: {sum: rating, where: city}}", "'where' in metric 'x' needs a field of type boolean")
        let decimals = ItemsPipeline.errors(
            steps: """
                  - {aggregate: group-stats, collection: items, by: city, into: cities, decimals: -1, metrics: {n: count}}
                """, outputs: outputs)
        #expect(decimals.contains { $0.contains("'decimals' must be between 0 and 10, got -1") }, "\(decimals)")
    }

    @Test func hugeSumsAndMeansStayFiniteOrNull() throws {
        let result = try Harness.run(
            """
            name: g
            sources:
              places: {kind: json, path: data.json, fields: {g: string, v: number}}
            steps:
              - aggregate: group-stats
                collection: places
                by: g
                into: groups
                decimals: 1
                metrics: {total: {sum: v}, mean: {mean: v}}
            outputs:
              - {file: p.json, collection: places}
              - {file: g.json, collection: groups}
            """,
            files: ["data.json": #"[{"g":"a","v":1e308},{"g":"a","v":1e308},{"g":"b","v":0.25},{"g":"b","v":0.5}]"#])
        let groups = result.records("groups")
        #expect(groups[0]["total"] == .null)  // overflows a double: no value, never inf
        #expect(groups[0]["mean"] == .double(1e308))  // too large to scale: kept as it is
        #expect(groups[1]["total"] == .double(0.8))  // 0.75 rounded half away from zero to 1 decimal
        #expect(groups[1]["mean"] == .double(0.4))  // 0.375
    }

    @Test func aKeyRepeatedInStatisticsIsReportedWithoutAFalseLocation() throws {
        let result = try Harness.run(
            """
            name: g
            sources:
              places: {kind: json, path: places.json, fields: {tripId: string, category: string}}
              trips: {kind: json, path: trips.json, fields: {id: string}}
            steps:
              - {aggregate: group-stats, collection: places, by: [tripId, category], into: tripStats, metrics: {places: count}}
              - {enrich: lookup, collection: trips, key: id, from: tripStats, from-key: tripId, unmatched: null, take: {places: places}}
            outputs:
              - {file: t.json, collection: trips}
              - {file: p.json, collection: places}
              - {file: s.json, collection: tripStats}
            """,
            files: [
                "places.json": #"[{"tripId":"a","category":"x"},{"tripId":"a","category":"y"}]"#,
                "trips.json": #"[{"id":"a"}]"#,
            ])
        let warning = try #require(result.state.warnings.first)
        #expect(warning.finding.location == nil && warning.id == nil)
        #expect(
            warning.finding.message
                == #"tripId "a" appears in more than one record of the statistics tripStats (its groups have more fields than the key); lookups use the first"#
        )
    }
}
