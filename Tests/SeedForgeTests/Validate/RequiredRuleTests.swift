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

    /// The blank test answers text starting with an ASCII character from that byte; it must
    /// agree with `Character.isWhitespace` on every kind of text, blank or not.
    @Test(arguments: [
        "", " ", " \t\n\r\u{0B}\u{0C}", "\r\n", "\u{A0}", " \u{2003} \u{3000}", "\u{85}", "a", " a", "\t.",
        "\u{1F}", "\u{1C} ", "0", "\u{0}", " \u{301}", "\u{301}", "é", "\u{200B}", "\u{FEFF}", "München", "  x  ",
    ])
    func blankAgreesWithCharacterWhitespace(text: String) {
        #expect(RequiredRule.isBlank(text) == text.allSatisfy(\.isWhitespace))
    }

    @Test func requiredCanAllowBlank() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- validate: required\n  collection: items\n  field: name\n  allow-blank: true",
            records: #"[{"id":1,"name":" "}]"#)
        #expect(result.rejects("items").isEmpty)
    }
}
