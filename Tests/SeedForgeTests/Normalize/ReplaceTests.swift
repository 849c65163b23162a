import Foundation
import Testing

@testable import SeedForge

/// `normalize: replace`: pattern replacement in text fields.
@Suite("Normalize: replace")
struct ReplaceTests {
    @Test func replaceRewritesMatchesAndCountsChangedRecords() throws {
        let result = try TextStepHarness.run(
            """
              - normalize: replace
                collection: shops
                field: name
                pattern: "\\\\s*\\\\((temporarily )?closed\\\\)$"
                with: ""
                ignore-case: true
              - normalize: replace
                collection: shops
                field: address
                pattern: "^(\\\\d+) (.*)$"
                with: "$2 $1"
                into: streetFirst
            """,
            #"[{"name":"The Hive (closed)","address":"1 Bee St"},{"name":"Comb (Temporarily Closed)"},{"name":"Drone"}]"#
        )
        let shops = result.records("shops")
        #expect(shops.map { $0["name"] } == [.string("The Hive"), .string("Comb"), .string("Drone")])
        #expect(shops.map { $0["streetFirst"] } == [.string("Bee St 1"), .null, .null])
        #expect(shops[0]["address"] == .string("1 Bee St"), "into leaves the field as read")
        let stats = result.state.stepStats.filter { $0.label.hasPrefix("normalize: replace") }
        #expect(stats.map(\.changed) == [2, 1])
    }

    @Test func replaceRefusesABadPatternAndNonTextFields() {
        func error(_ field: String, _ pattern: String) -> String? {
            Harness.definitionErrors(
                """
                name: t
                sources:
                  shops: {kind: json, path: data.json, fields: {name: string, rating: number}}
                steps:
                  - normalize: replace
                    collection: shops
                    field: \(field)
                    pattern: "\(pattern)"
                    with: x
                outputs:
                  - {file: shops.json, collection: shops}
                """
            ).first.map { "\($0.line): \($0.message)" }
        }
        #expect(error("name", "(unclosed") == "8: 'pattern' is not a valid ICU regular expression: (unclosed")
        #expect(error("rating", "a") == "7: 'rating' is number; replace rewrites text fields")
    }
}
