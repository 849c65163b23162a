import Foundation
import Testing

@testable import SeedForge

@Suite("Normalize: set; map-values into and default")
struct SetAndMapIntoTests {
    @Test func setAddsConstantFieldsWithTypesFromTheValues() throws {
        let result = try RuleHarness.run(
            fields: "id: integer",
            steps: """
                - normalize: set
                  collection: items
                  fields:
                    isVisited: false
                    source: places-api
                    count: 3
                    share: 0.5
                    code: {type: string, value: "007"}
                    visitedDate: {type: string, value: null}
                    price: {type: decimal, value: 2.50}
                """,
            records: #"[{"id":1},{"id":2}]"#)
        let schema = result.state.schemas["items"]!
        #expect(
            ["isVisited", "source", "count", "share", "code", "visitedDate"].map { schema[schema.id(of: $0)!].type }
                == [.boolean, .string, .integer, .number, .string, .string])
        #expect(
            result.records("items").allSatisfy {
                $0["isVisited"] == .bool(false) && $0["source"] == .string("places-api") && $0["count"] == .int(3)
                    && $0["share"] == .double(0.5) && $0["code"] == .string("007") && $0["visitedDate"] == .null
                    && $0["price"] == .decimal("2.5")  // exact digits, as ingest stores decimals
            })
    }

    @Test func setNeverOverwritesAndNullNeedsAType() {
        func messages(_ fields: String) -> [String] {
            Harness.definitionErrors(
                """
                name: s
                sources:
                  items: {kind: json, path: data.json, fields: {id: integer}}
                steps:
                  - {normalize: set, collection: items, fields: \(fields)}
                outputs:
                  - {file: i.json, collection: items}
                """
            ).map(\.message)
        }
        #expect(messages("{id: 3}").contains { $0.contains("already has a field 'id'") })
        #expect(messages("{x: null}").contains { $0.contains("null has no type") })
        #expect(
            messages("{x: {type: integer, value: abc}}").contains {
                $0.contains("'abc' is not a value of its type, integer")
            })
        #expect(messages("{x: {type: text, value: a}}").contains { $0.contains("unknown type 'text'") })
        #expect(messages("{}").contains { $0.contains("names no field") })
    }

    static let types = """
        - normalize: map-values
          collection: items
          field: types
          into: category
          default: Other
          map:
            Restaurant: [restaurant, cafe, food]
            Place of Worship: [church, place_of_worship]
            Other: []
        """

    @Test func anArrayMapsIntoANewFieldWithADefault() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\ntypes: array",
            steps: Self.types,
            records:
                #"[{"id":1,"types":["point_of_interest","church","place_of_worship"]},{"id":2,"types":["cemetery"]},{"id":3,"types":[]},{"id":4},{"id":5,"types":["cafe"]}]"#
        )
        #expect(
            result.records("items").map { $0["category"]! }
                == ["Place of Worship", "Other", "Other", "Other", "Restaurant"].map(Value.string))
        #expect(result.records("items")[1]["types"] == .array([.string("cemetery")]))  // the mapped field stays as read
        #expect(result.state.warnings.isEmpty && result.rejects("items").isEmpty)
    }

    /// The definition errors of a one-step pipeline over `items` with these fields.
    static func messages(_ step: String, fields: String) -> [String] {
        Harness.definitionErrors(
            """
            name: m
            sources:
              items: {kind: json, path: data.json, fields: \(fields)}
            steps:
              - \(step)
            outputs:
              - {file: i.json, collection: items}
            """
        ).map(\.message)
    }

    @Test func intoAndDefaultAreChecked() {
        func messages(_ step: String, fields: String = "{types: array, c: string}") -> [String] {
            Self.messages(step, fields: fields)
        }
        #expect(
            messages("{normalize: map-values, collection: items, field: types, map: {A: [a]}}").contains {
                $0.contains("'types' is an array: give 'into'")
            })
        #expect(
            messages("{normalize: map-values, collection: items, field: c, default: B, map: {A: [a]}}").contains {
                $0.contains("'default: B' is not one of the canonical values A")
            })
        #expect(
            messages("{normalize: map-values, collection: items, field: c, default: A, unmapped: warn, map: {A: [a]}}")
                .contains { $0.contains("'unmapped' and 'default' exclude each other") })
        #expect(
            messages("{normalize: map-values, collection: items, field: types, into: c, map: {A: [a]}}").contains {
                $0.contains("already has a field 'c'")
            })
    }

    @Test func dateRuleAcceptsRealCalendarDatesOnly() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nday: any",
            steps: """
                - validate: date
                  collection: items
                  field: day
                """,
            records:
                #"[{"id":1,"day":"2024-06-14"},{"id":2,"day":"2024-02-29"},{"id":3,"day":"2025-02-29"},{"id":4,"day":"14/06/2024"},{"id":5,"day":"2024-6-9"},{"id":6,"day":"2024-06-14T10:00:00Z"},{"id":7,"day":20240614},{"id":8}]"#
        )
        #expect(result.records("items").map { $0["id"]! } == [.int(1), .int(2), .int(8)])
        #expect(
            result.rejects("items").map { $0.findings[0].message } == [
                #"day "2025-02-29" is not a calendar date written YYYY-MM-DD (e.g. 2024-06-14)"#,
                #"day "14/06/2024" is not a calendar date written YYYY-MM-DD (e.g. 2024-06-14)"#,
                #"day "2024-6-9" is not a calendar date written YYYY-MM-DD (e.g. 2024-06-14)"#,
                #"day "2024-06-14T10:00:00Z" is not a calendar date written YYYY-MM-DD (e.g. 2024-06-14)"#,
                "day must be a date text, found number",
            ])
    }

    @Test func nonFiniteConstantsAreDefinitionErrorsNotCrashes() {
        func messages(_ step: String) -> [String] { Self.messages(step, fields: "{id: integer, v: any}") }
        #expect(
            messages("{normalize: set, collection: items, fields: {f: .inf}}").contains {
                $0.contains("'.inf' is not a finite number")
            })
        #expect(
            messages("{normalize: set, collection: items, fields: {f: {type: any, value: .nan}}}").contains {
                $0.contains("'.nan' is not a finite number")
            })
        #expect(
            messages("{normalize: set, collection: items, fields: {f: 1e400}}").contains {
                $0.contains("not a finite number")
            })
    }
}
