import Foundation
import Testing

@testable import SeedForge

/// `normalize: template`: a field made from others' text.
@Suite("Normalize: template")
struct TemplateTests {
    @Test func templateLeavesOutMissingFieldsWithTheirSeparator() throws {
        // Text between two placeholders goes with the field after it; text before the
        // first and after the last is always written; {{ and }} are braces.
        let result = try TextStepHarness.run(
            """
              - normalize: template
                collection: shops
                template: "{{{name}: {address}, {city}}} – {rating}"
                into: line
            """,
            #"[{"name":"Hive","address":"1 Bee St","city":"Turin","rating":4.5},{"name":"Comb","address":null,"city":"Ghent","rating":4},{"name":null,"address":"","city":null}]"#
        )
        #expect(
            result.records("shops").map { $0["line"] } == [
                .string("{Hive: 1 Bee St, Turin} – 4.5"), .string("{Comb, Ghent} – 4"), .null,
            ])
    }

    @Test func templateNullFieldsNullMakesTheResultNull() throws {
        let result = try TextStepHarness.run(
            """
              - normalize: template
                collection: shops
                template: "{address}, {city}"
                into: line
                null-fields: null
            """, #"[{"address":"1 Bee St","city":"Turin"},{"address":"12 Rue du Miel","city":null}]"#)
        #expect(result.records("shops").map { $0["line"] } == [.string("1 Bee St, Turin"), .null])
    }

    @Test func templateMistakesAreDefinitionErrorsOnTheirLine() {
        func error(_ template: String) -> String? {
            Harness.definitionErrors(
                """
                name: t
                sources:
                  shops: {kind: json, path: data.json, fields: {name: string}}
                steps:
                  - normalize: template
                    collection: shops
                    template: "\(template)"
                    into: line
                outputs:
                  - {file: shops.json, collection: shops}
                """
            ).first.map { "\($0.line): \($0.message)" }
        }
        #expect(
            error("{nam}")?.hasPrefix("7: unknown field 'nam' in collection 'shops'; did you mean 'name'?") == true,
            "\(error("{nam}") ?? "")")
        #expect(error("{name") == "7: 'template' has an unmatched '{'; write {{ or }} for a brace")
        #expect(error("plain") == "7: 'template' names no field; write placeholders such as {city}")
        #expect(error("{}") == "7: 'template' has an empty placeholder {}; name a field, or write {{ for a brace")
    }
}
