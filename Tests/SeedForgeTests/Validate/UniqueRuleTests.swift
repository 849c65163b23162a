import Testing

@testable import SeedForge

/// `validate: unique`: later records with a value seen before.
@Suite("Validate: unique")
struct UniqueRuleTests {
    @Test func uniqueFlagsLaterRecordsAndNamesTheFirst() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- validate: unique\n  collection: items\n  field: id",
            records: "[{\"id\":1,\"name\":\"a\"},\n{\"id\":2},\n{\"id\":1,\"name\":\"b\"}]")
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(2)])
        let finding = try #require(result.rejects("items").first?.findings.first)
        #expect(finding.message.contains("is already used by the record at"))
        #expect(finding.message.contains(":1:2"))
        #expect(finding.location?.line == 3)
    }
}
