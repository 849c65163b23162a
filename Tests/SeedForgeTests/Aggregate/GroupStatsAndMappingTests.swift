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
            records:
                #"[{"id":1,"category":"food "},{"id":2,"category":"MUSÉUMS"},{"id":3,"category":"🍕"},{"id":4,"category":["lodging","restaurant"]},{"id":5,"category":"Nightlife"},{"id":6}]"#
        )
        #expect(
            result.records("items").map { $0["category"] } == [
                .string("Food"), .string("Museum"), .string("Food"), .string("Food"), .null,
            ])
        let finding = try #require(result.rejects("items").first?.findings.first)
        #expect(finding.rule == "unmapped")
        #expect(finding.message == #"category "Nightlife" is none of Food, Museum or their listed spellings"#)
    }

    @Test func aSpellingListedTwiceIsADefinitionError() {
        let errors = Harness.definitionErrors(
            """
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

    @Test func aFilterKeepsTheMatchingRecords() throws {
        let dir = try TempDir()
        try dir.write(
            "p.yml",
            """
            name: f
            sources:
              items: {kind: json, path: d.json, fields: {name: string, category: string}}
            outputs:
              - {file: all.json, collection: items}
              - {file: food.json, collection: items, where: {category: Food}}
              - {file: two.json, collection: items, where: {category: [Food, Museum]}}
            """)
        try dir.write(
            "d.json",
            #"[{"name":"A","category":"Food"},{"name":"B","category":"Museum"},{"name":"C","category":"Sports"}]"#)
        #expect(try CLI.run(["run", "p.yml", "--out", "o"], cwd: dir.path).status == 0)
        func names(_ file: String) throws -> [String] {
            try #require(jsonObject(dir.bytes("o/f/\(file)")) as? [[String: Any]]).map { $0["name"] as! String }
        }
        #expect(try names("food.json") == ["A"])  // kept, not removed
        #expect(try names("two.json") == ["A", "B"])
        #expect(try names("all.json") == ["A", "B", "C"])
    }

    // MARK: definitions that must not load

    /// A pipeline of items {id, name, city, rating, open, code} with the given steps and outputs.
    static func errors(steps: String = "", outputs: String = "  - {file: all.json, collection: items}") -> [String] {
        Harness.definitionErrors(
            """
            name: r
            sources:
              items: {kind: json, path: data.json, fields: {id: integer, name: string, city: string, rating: number, open: boolean, code: string}}
            steps:
            \(steps.isEmpty ? "  []" : steps)
            outputs:
            \(outputs)
            """
        ).map(\.message)
    }

    static let stats = """
          - {aggregate: group-stats, collection: items, by: city, into: cities, metrics: {n: count}}
        """

    @Test func aFilteredOutputDoesNotCountAsWritingTheCollection() {
        let messages = Self.errors(outputs: "  - {file: paris.json, collection: items, where: {city: Paris}}")
        #expect(
            messages.contains { $0.contains("collection 'items' is never written") && $0.contains("without 'where'") },
            "\(messages)")
    }

    @Test func pagesAndIndexOutputsRefuseAFilter() {
        let messages = Self.errors(
            outputs: """
                  - {file: all.json, collection: items}
                  - {file: pages, collection: items, format: pages, where: {city: Paris}}
                """)
        #expect(messages.contains { $0.contains("'where' cannot filter a pages output") }, "\(messages)")
    }

    @Test func filterValuesAreReadAsTheFieldsType() {
        #expect(
            Self.errors(
                outputs: """
                      - {file: all.json, collection: items}
                      - {file: some.json, collection: items, where: {id: seven}}
                    """
            ).contains { $0.contains("'where' on 'id': 'seven' is not a value of its type, integer") })
        #expect(
            Self.errors(
                outputs: """
                      - {file: all.json, collection: items}
                      - {file: some.json, collection: items, where: {city: []}}
                    """
            ).contains { $0.contains("lists no value") })
        #expect(
            Self.errors(
                outputs: """
                      - {file: all.json, collection: items}
                      - {file: some.json, collection: items, where: {open: maybe}}
                    """
            ).contains { $0.contains("'maybe' is not a value of its type, boolean") })
    }

    @Test func aTextFieldFilterMatchesTheWrittenTextAndIntegersCompareExactly() throws {
        let dir = try TempDir()
        try dir.write(
            "p.yml",
            """
            name: f
            sources:
              items: {kind: json, path: d.json, fields: {id: integer, code: string, open: boolean}}
            outputs:
              - {file: all.json, collection: items}
              - {file: code.json, collection: items, where: {code: 007}}
              - {file: big.json, collection: items, where: {id: 9007199254740993}}
              - {file: yes.json, collection: items, where: {code: yes}}
              - {file: open.json, collection: items, where: {open: yes}}
            """)
        try dir.write(
            "d.json",
            #"[{"id":9007199254740992,"code":"007","open":true},{"id":9007199254740993,"code":"7","open":false},{"id":1,"code":"yes","open":false}]"#
        )
        #expect(try CLI.run(["run", "p.yml", "--out", "o"], cwd: dir.path).status == 0)
        func ids(_ file: String) throws -> [Int64] {
            try #require(jsonObject(dir.bytes("o/f/\(file)")) as? [[String: Any]]).map {
                ($0["id"] as! NSNumber).int64Value
            }
        }
        #expect(try ids("code.json") == [9_007_199_254_740_992])  // "007" as text, not the number 7
        #expect(try ids("big.json") == [9_007_199_254_740_993])  // not its neighbour, equal as doubles
        #expect(try ids("yes.json") == [1])  // "yes" as text on a text field
        #expect(try ids("open.json") == [9_007_199_254_740_992])  // yes as true on a boolean field
    }

    @Test func derivedCollectionsTakeNoValidateOrNormalizeSteps() {
        let messages = Self.errors(
            steps: Self.stats + """

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
            let messages = Self.errors(
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
        let decimals = Self.errors(
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

    @Test func mapValuesAcceptsPlainNullAndIgnoresEmojiSelectorsAndMapsNumbersByText() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\ncategory: any",
            steps: """
                - normalize: map-values
                  collection: items
                  field: category
                  unmapped: null
                  map: {Museum: ["\u{1F3DB}\u{FE0F}"], Food: [1, restaurant]}
                """,
            records: #"[{"id":1,"category":"\#u{1F3DB}"},{"id":2,"category":1},{"id":3,"category":"zoo"}]"#)
        #expect(result.records("items").map { $0["category"] } == [.string("Museum"), .string("Food"), .null])
        #expect(result.rejects("items").isEmpty)
    }

    @Test func mapValuesRefusesANumericField() {
        let messages = Self.errors(
            steps: """
                  - {normalize: map-values, collection: items, field: rating, map: {A: [x]}}
                """)
        #expect(
            messages.contains { $0.contains("map-values writes text, but 'rating' is declared number") }, "\(messages)")
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

    @Test func decimalFiltersCompareExactly() throws {
        // What a `where` on a decimal field, or a test expectation, compares: exact digits.
        #expect(!Value.decimal("12345678901234567.01").describes(.decimal("12345678901234567.02")))
        #expect(Value.decimal("12345678901234567.01").describes(.decimal("12345678901234567.01")))
        #expect(Value.decimal("5").describes(.int(5)) && Value.int(5).describes(.decimal("5")))
        #expect(!Value.decimal("9007199254740993").describes(.int(9_007_199_254_740_992)))
        #expect(Value.decimal("2.5").describes(.double(2.5)))
    }
}
