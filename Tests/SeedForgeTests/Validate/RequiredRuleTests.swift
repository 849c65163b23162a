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

    /// Values other than text are judged from their row's tag alone: false, zero, an empty
    /// array or object and a decimal are present; only null is not.
    @Test func requiredKeepsEveryValueButNullThatIsNotText() throws {
        let result = try RuleHarness.run(
            fields:
                "id: integer\nflag: boolean\nzero: number\nlist: array\nmeta: object\namount: decimal\nname: string",
            steps: "- validate: required\n  collection: items\n  field: [flag, zero, list, meta, amount, name]",
            records: #"""
                [{"id":1,"flag":false,"zero":0.0,"list":[],"meta":{},"amount":0.10,"name":"x"},
                 {"id":2,"flag":null,"zero":0.0,"list":[],"meta":{},"amount":0.10,"name":"x"},
                 {"id":3,"flag":true,"zero":-0.0,"list":[null],"meta":{"a":null},"amount":12.50,"name":"\u00e9"}]
                """#)
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(3)])
        #expect(result.rejects("items").map(\.findings[0].message) == ["flag is required but null"])
    }

    @Test func requiredCanAllowBlank() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- validate: required\n  collection: items\n  field: name\n  allow-blank: true",
            records: #"[{"id":1,"name":" "}]"#)
        #expect(result.rejects("items").isEmpty)
    }
}
