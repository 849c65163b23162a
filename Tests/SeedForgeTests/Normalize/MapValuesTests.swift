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
