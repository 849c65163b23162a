import Foundation
import Testing

@testable import SeedForge

/// `dedupe` with `within`: the same place from two inputs, a few metres apart.
@Suite("Aggregate: dedupe within a distance")
struct DedupeWithinTests {
    static func run(_ keep: String, _ records: String) throws -> RunResult {
        try RuleHarness.run(
            fields: "id: integer\nname: string\nlat: any\nlon: any",
            steps: """
                - aggregate: dedupe
                  collection: items
                  by: name
                  fold: true
                  \(keep)
                  within: {latitude: lat, longitude: lon, km: 0.1}
                """,
            records: records)
    }

    // 0.0009° of latitude is about 100 m; 0.0005° about 56 m.
    static let places = """
        [{"id":1,"name":"Café du Monde","lat":29.9575,"lon":-90.0618},
         {"id":2,"name":"CAFE DU MONDE","lat":29.9579,"lon":-90.0618},
         {"id":3,"name":"Cafe du Monde","lat":29.9700,"lon":-90.0618},
         {"id":4,"name":"Jackson Square","lat":29.9574,"lon":-90.0630},
         {"id":5,"name":"Jackson Square","lat":29.9574,"lon":-90.0630},
         {"id":6,"name":"Jackson Square","lat":null,"lon":-90.0630},
         {"id":7,"name":"Jackson Square","lat":29.9574,"lon":-90.0630}]
        """

    @Test func theSameNameCloseByIsOnePlaceAndFartherAwayIsAnother() throws {
        let result = try Self.run("keep: first", Self.places)
        // 2 is 44 m from 1 (merged), 3 is 1.4 km away (kept); 5 and 7 sit on 4; 6 has no position.
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(3), .int(4), .int(6)])
        #expect(result.state.duplicates.map(\.id) == [.int(2), .int(5), .int(7)])
        #expect(result.state.duplicates.map(\.winnerID) == [.int(1), .int(4), .int(4)])
        #expect(
            result.state.warnings.map(\.finding.message) == [
                "1 items records have a key but no position on the globe (lat, lon missing or out of range), so they are never merged"
            ])
    }

    @Test func aChainOfNeighboursIsNotCollapsed() throws {
        // A, B, C along a meridian 67 m apart: B merges into A; C is 133 m from A, so kept.
        let result = try Self.run(
            "keep: first",
            """
            [{"id":1,"name":"Trailhead","lat":45.0000,"lon":7.0},
             {"id":2,"name":"Trailhead","lat":45.0006,"lon":7.0},
             {"id":3,"name":"Trailhead","lat":45.0012,"lon":7.0}]
            """)
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(3)])
        #expect(result.state.duplicates.map(\.winnerID) == [.int(1)])
    }

    @Test func theKeepRuleChoosesTheWinner() throws {
        let highest = try Self.run("keep: highest\n  keep-by: id", Self.places)
        #expect(RuleHarness.keptIDs(highest) == [.int(2), .int(3), .int(6), .int(7)])
        #expect(highest.state.duplicates.map(\.id) == [.int(1), .int(4), .int(5)])
        #expect(highest.state.duplicates.map(\.winnerID) == [.int(2), .int(7), .int(7)])
        let last = try Self.run("keep: last", Self.places)
        #expect(RuleHarness.keptIDs(last) == [.int(2), .int(3), .int(6), .int(7)])
    }

    @Test func mistakesAreDefinitionErrors() {
        func messages(_ within: String) -> [String] {
            Harness.definitionErrors(
                """
                name: d
                sources:
                  items: {kind: json, path: data.json, fields: {name: string, label: string, lat: number, lon: number}}
                steps:
                  - {aggregate: dedupe, collection: items, by: [name, lat], within: \(within)}
                outputs:
                  - {file: i.json, collection: items}
                """
            ).map(\.message)
        }
        #expect(
            messages("{latitude: lat, longitude: lon, km: 0.1}").contains { $0.contains("must not also be in 'by'") })
        #expect(
            messages("{latitude: lat, longitude: lon, km: -1}").contains {
                $0.contains("'km' of 'within' must be 0 or more")
            })
        #expect(messages("{latitude: lat, longitude: lon}").contains { $0.contains("km") })
        #expect(messages("{latitude: lat, longitude: lon, kms: 1}").contains { $0.contains("unknown key 'kms'") })
        #expect(messages("{latitude: lon, longitude: lon, km: 1}").contains { $0.contains("name the same field") })
        #expect(
            messages("{latitude: label, longitude: lon, km: 1}").contains {
                $0.contains("'label' is string; coordinates must be numbers")
            })
    }
}
