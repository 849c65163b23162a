import Testing

@testable import SeedForge

/// `validate: timestamp`: RFC 3339 date-times.
@Suite("Validate: timestamp")
struct TimestampRuleTests {
    @Test func timestampRequiresRFC3339() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nat: any",
            steps: "- validate: timestamp\n  collection: items\n  field: at",
            records:
                #"[{"id":1,"at":"2025-09-17T10:15:00Z"},{"id":2,"at":"2025-02-30T10:00:00Z"},{"id":3,"at":1758104100},{"id":4}]"#
        )
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(4)])
        #expect(
            result.rejects("items")[1].findings[0].message.contains("must be an RFC 3339 timestamp text, found number"))
    }
}
