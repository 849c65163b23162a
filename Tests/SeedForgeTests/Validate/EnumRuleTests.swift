import Testing

@testable import SeedForge

/// `validate: enum`: one of the listed values, with a suggestion.
@Suite("Validate: enum")
struct EnumRuleTests {
    @Test func enumSuggestsTheNearestValue() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\ncategory: string",
            steps:
                "- validate: enum\n  collection: items\n  field: category\n  values: [Food, Museum, Sports, Historical]",
            records: #"[{"id":1,"category":"Food"},{"id":2,"category":"Musem"},{"id":3,"category":"food"}]"#)
        #expect(RuleHarness.keptIDs(result) == [.int(1)])
        #expect(result.rejects("items")[0].findings[0].message.contains("did you mean 'Museum'?"))
    }
}
