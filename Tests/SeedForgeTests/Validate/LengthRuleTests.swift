import Testing

@testable import SeedForge

/// `validate: length`: characters, counted after trimming.
@Suite("Validate: length")
struct LengthRuleTests {
    @Test func lengthCountsCharactersAfterTrimming() throws {
        let eighty = String(repeating: "é", count: 80)
        let result = try RuleHarness.run(
            fields: "id: integer\ntitle: string",
            steps: "- validate: length\n  collection: items\n  field: title\n  max: 80",
            records:
                "[{\"id\":1,\"title\":\"  \(eighty)  \"},{\"id\":2,\"title\":\"\(eighty)!\"},{\"id\":3,\"title\":\"🐝\(String(repeating: "a", count: 79))\"}]"
        )
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(3)])
        #expect(result.rejects("items")[0].findings[0].message == "title has 81 characters, more than the maximum 80")
    }
}
