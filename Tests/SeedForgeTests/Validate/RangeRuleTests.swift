import Testing

@testable import SeedForge

/// `validate: range`: values outside it are reported, never clamped.
@Suite("Validate: range")
struct RangeRuleTests {
    @Test func rangeReportsNeverClamps() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nrating: number",
            steps:
                "- validate: range\n  collection: items\n  field: rating\n  min: 0\n  max: 5\n  hint: never rescaled",
            records:
                #"[{"id":1,"rating":4.8},{"id":2,"rating":9.6},{"id":3,"rating":-0.1},{"id":4,"rating":0},{"id":5,"rating":5},{"id":6}]"#
        )
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(4), .int(5), .int(6)])
        #expect(result.records("items")[0]["rating"] == .double(4.8))
        #expect(
            result.rejects("items").map(\.findings[0].message) == [
                "rating 9.6 is above the maximum 5 (never rescaled)",
                "rating -0.1 is below the minimum 0 (never rescaled)",
            ])
        #expect(result.rejects("items")[0].findings[0].value == .double(9.6))
    }
}
