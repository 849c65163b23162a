import Testing

@testable import SeedForge

/// `validate: pattern`: the whole text matches.
@Suite("Validate: pattern")
struct PatternRuleTests {
    @Test func patternMatchesTheWholeText() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\ncode: string",
            steps:
                "- validate: pattern\n  collection: items\n  field: code\n  regex: \"[A-Z]{2}\"\n  description: a country code",
            records: #"[{"id":1,"code":"UA"},{"id":2,"code":"UAX"},{"id":3,"code":"ua"}]"#)
        #expect(RuleHarness.keptIDs(result) == [.int(1)])
        #expect(result.rejects("items")[0].findings[0].message == "code \"UAX\" does not match a country code")
    }
}
