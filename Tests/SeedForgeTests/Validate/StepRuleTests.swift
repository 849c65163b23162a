import Testing

@testable import SeedForge

/// `validate: step`: values on a grid (half stars).
@Suite("Validate: step")
struct StepRuleTests {
    @Test func stepAcceptsHalfStarsOnly() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nrating: number",
            steps: "- validate: step\n  collection: items\n  field: rating\n  step: 0.5",
            records:
                #"[{"id":1,"rating":0.5},{"id":2,"rating":4.3},{"id":3,"rating":5},{"id":4,"rating":2.25},{"id":5,"rating":3.5000000000001}]"#
        )
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(3), .int(5)])
        #expect(
            result.rejects("items").map(\.findings[0].message) == [
                "rating 4.3 is not a multiple of 0.5", "rating 2.25 is not a multiple of 0.5",
            ])
    }
}
