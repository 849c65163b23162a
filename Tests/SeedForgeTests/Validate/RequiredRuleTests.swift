import Testing

@testable import SeedForge

/// `validate: required`: missing, null and blank values.
@Suite("Validate: required")
struct RequiredRuleTests {
    @Test func requiredRejectsMissingNullAndBlankText() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- validate: required\n  collection: items\n  field: name",
            records: #"[{"id":1,"name":"A"},{"id":2},{"id":3,"name":null},{"id":4,"name":" \t "},{"id":5,"name":"0"}]"#)
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(5)])
        #expect(
            result.rejects("items").map(\.findings[0].message) == [
                "name is required but missing", "name is required but null", "name is required but blank",
            ])
        #expect(result.rejects("items")[0].findings[0].location?.pointer == "/1/name")
    }

    @Test func requiredCanAllowBlank() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- validate: required\n  collection: items\n  field: name\n  allow-blank: true",
            records: #"[{"id":1,"name":" "}]"#)
        #expect(result.rejects("items").isEmpty)
    }
}
