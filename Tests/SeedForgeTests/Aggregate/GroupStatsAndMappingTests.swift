import Foundation
import Testing

@testable import SeedForge

@Suite("Normalize: map-values; aggregate: group-stats; output filters")
struct GroupStatsAndMappingTests {
    @Test func spellingsMapToTheCanonicalValueAndTheRestIsAFinding() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\ncategory: any",
            steps: """
                - normalize: map-values
                  collection: items
                  field: category
                  map: {Food: [restaurant, "🍕"], Museum: [museums]}
                """,
            records: #"[{"id":1,"category":"food "},{"id":2,"category":"MUSÉUMS"},{"id":3,"category":"🍕"},{"id":4,"category":["lodging","restaurant"]},{"id":5,"category":"Nightlife"},{"id":6}]"#)
        #expect(result.records("items").map { $0["category"] } == [.string("Food"), .string("Museum"), .string("Food"), .string("Food"), .null])
        let finding = try #require(result.rejects("items").first?.findings.first)
        #expect(finding.rule == "unmapped")
        #expect(finding.message == #"category "Nightlife" is none of Food, Museum or their listed spellings"#)
    }

    @Test func aSpellingListedTwiceIsADefinitionError() {
        let errors = Harness.definitionErrors("""
            name: m
            sources:
              items: {kind: json, path: data.json, fields: {c: string}}
            steps:
              - {normalize: map-values, collection: items, field: c, map: {A: [x], B: [X]}}
            outputs:
              - {file: i.json, collection: items}
            """)
        #expect(errors.first?.message.contains("'X' is listed for both 'A' and 'B'") == true, "\(errors)")
    }

    @Test func groupStatisticsAreComputedPerGroup() throws {
        let result = try Harness.run("""
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
            """, files: ["data.json": """
                [{"trip":"b","rating":4,"visited":true,"date":"2025-06-03"},{"trip":"a","rating":5,"visited":true,"date":"2025-05-01"},
                 {"trip":"b","rating":1,"visited":false},{"trip":"b","rating":3,"visited":true,"date":"2025-06-01"},{"trip":"a","visited":false}]
                """])
        let trips = result.records("trips")
        #expect(trips.map { $0["trip"] } == [.string("a"), .string("b")])
        #expect(trips[1]["places"] == .int(3))
        #expect(trips[1]["visited"] == .int(2))
        #expect(trips[1]["meanVisitedRating"] == .double(3.5))
        #expect(trips[1]["first"] == .string("2025-06-01"))
        #expect(trips[1]["last"] == .string("2025-06-03"))
        #expect(trips[0]["meanVisitedRating"] == .double(5))
        #expect(result.counts.map(\.collection) == ["places"])   // derived collections read nothing
    }

    @Test func aFilterKeepsTheMatchingRecords() throws {
        let dir = try TempDir()
        try dir.write("p.yml", """
            name: f
            sources:
              items: {kind: json, path: d.json, fields: {name: string, category: string}}
            outputs:
              - {file: all.json, collection: items}
              - {file: food.json, collection: items, where: {category: Food}}
              - {file: two.json, collection: items, where: {category: [Food, Museum]}}
            """)
        try dir.write("d.json", #"[{"name":"A","category":"Food"},{"name":"B","category":"Museum"},{"name":"C","category":"Sports"}]"#)
        #expect(try CLI.run(["run", "p.yml", "--out", "o"], cwd: dir.path).status == 0)
        func names(_ file: String) throws -> [String] {
            try #require(jsonObject(dir.bytes("o/f/\(file)")) as? [[String: Any]]).map { $0["name"] as! String }
        }
        #expect(try names("food.json") == ["A"])          // kept, not removed
        #expect(try names("two.json") == ["A", "B"])
        #expect(try names("all.json") == ["A", "B", "C"])
    }
}
