import Foundation
import Testing

@testable import SeedForge

@Suite("Normalize map-values")
struct MapValuesTests {
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
        let messages = ItemsPipeline.errors(
            steps: """
                  - {normalize: map-values, collection: items, field: rating, map: {A: [x]}}
                """)
        #expect(
            messages.contains { $0.contains("map-values writes text, but 'rating' is declared number") }, "\(messages)")
    }
}

/// Issue 18: map-values on lists with a priority: a places API's `types` lists a cafe
/// inside a church as [cafe, church, point_of_interest].
@Suite("Normalize: map-values priority on lists")
struct MapValuesPriorityTests {
    static func yaml(_ priority: String?) -> String {
        """
        name: t
        sources:
          nearby: {kind: json, path: nearby.json, fields: {types: array}}
        steps:
          - normalize: map-values
            collection: nearby
            field: types
            into: category
            default: Other
        \(priority.map { "    priority: \($0)\n" } ?? "")    map: {Place of Worship: [church, mosque], Restaurant: [restaurant, cafe], Other: []}
        outputs:
          - {file: nearby.json, collection: nearby}
        """
    }

    static let places =
        #"[{"types":["cafe","church","point_of_interest"]},{"types":["point_of_interest","restaurant"]},{"types":["park"]},{"types":[]}]"#

    @Test func theListOrderWinsByDefault() throws {
        let result = try Harness.run(Self.yaml(nil), files: ["nearby.json": Self.places])
        #expect(
            result.records("nearby").map { $0["category"] } == [
                .string("Restaurant"), .string("Restaurant"), .string("Other"), .string("Other"),
            ])
    }

    @Test func priorityMapTakesTheValueWrittenFirstInTheMap() throws {
        let result = try Harness.run(Self.yaml("map"), files: ["nearby.json": Self.places])
        #expect(
            result.records("nearby").map { $0["category"] } == [
                .string("Place of Worship"), .string("Restaurant"), .string("Other"), .string("Other"),
            ])
    }

    @Test func priorityOnAFieldThatIsNoListIsADefinitionError() {
        let errors = Harness.definitionErrors(
            """
            name: t
            sources:
              items: {kind: json, path: data.json, fields: {category: string}}
            steps:
              - normalize: map-values
                collection: items
                field: category
                priority: map
                map: {Food: [food]}
            outputs:
              - {file: items.json, collection: items}
            """)
        #expect(errors.first?.line == 8)
        #expect(errors.first?.message == "'priority' chooses among the elements of a list; 'category' is string")
    }
}

/// Issue 14: a map-values step whose `default` is not a canonical value is reported as that
/// step's error, not also as an unknown field in an output that names its `into` field
/// (which, with `outputs:` written before `steps:`, sorted first and read as the cause).
@Suite("Normalize: map-values definition errors come from their cause")
struct MapValuesErrorOrderTests {
    static func yaml(outputsFirst: Bool) -> String {
        let steps = """
            steps:
              - normalize: map-values
                collection: nearby
                field: types
                into: category
                default: Misc
                map: {Restaurant: [restaurant, cafe], Other: []}
              - normalize: trim
                collection: nearby
                field: category

            """
        let outputs = """
            outputs:
              - {file: nearby.json, collection: nearby, fields: [types, category]}

            """
        return "name: t\nsources:\n  nearby: {kind: json, path: data.json, fields: {types: array}}\n"
            + (outputsFirst ? outputs + steps : steps + outputs)
    }

    @Test(arguments: [false, true])
    func aBadDefaultIsTheOnlyErrorWhereverTheOutputsAre(outputsFirst: Bool) {
        let errors = Harness.definitionErrors(Self.yaml(outputsFirst: outputsFirst))
        #expect(errors.count == 1, "\(errors.map(\.description))")
        #expect(errors.first?.message == "'default: Misc' is not one of the canonical values Restaurant, Other")
    }
}
