import Testing

@testable import SeedForge

/// `validate: country-code`: the assigned codes, `allow:` extras, and the messages for
/// everything else.
@Suite("Validate: country-code")
struct CountryCodeRuleTests {
    /// Every pair of capitals from `AA` to `ZZ` (found through the rule's bit table) passes
    /// exactly when it is an assigned code or allowed, as the list of codes says.
    @Test func everyTwoCapitalCodeIsJudgedByTheAssignedListAndAllow() throws {
        let letters = (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { String(UnicodeScalar($0)) }
        let codes = letters.flatMap { first in letters.map { first + $0 } }
        let records = codes.enumerated().map { #"{"id":\#($0.offset),"country":"\#($0.element)"}"# }
        let result = try RuleHarness.run(
            fields: "id: integer\ncountry: string",
            steps: "- validate: country-code\n  collection: items\n  field: country\n  allow: [XK, ZZ]",
            records: "[" + records.joined(separator: ",") + "]")
        let allowed = CountryCodeRule.assigned.union(["XK", "ZZ"])
        let kept = RuleHarness.keptIDs(result).compactMap { $0.flatMap { if case .int(let n) = $0 { n } else { nil } } }
        #expect(kept.map { codes[Int($0)] } == codes.filter(allowed.contains))
        #expect(kept.count == 251)
        #expect(
            result.rejects("items").first { $0.id == .int(Int64(codes.firstIndex(of: "AN")!)) }?.findings[0].message
                == #"country "AN" is not an ISO 3166-1 alpha-2 country code"#)
    }

    @Test func otherTextGetsItsOwnMessage() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\ncountry: string\nscore: integer",
            steps: "- validate: country-code\n  collection: items\n  field: [country, score]",
            records: #"""
                [{"id":1,"country":"UA","score":null},{"id":2,"country":"ua"},{"id":3,"country":""},
                 {"id":4,"country":"UAX"},{"id":5,"country":"U"},{"id":6,"country":"ÜA"},{"id":7,"country":"UA","score":3}]
                """#)
        #expect(RuleHarness.keptIDs(result) == [.int(1)])
        #expect(
            result.rejects("items").map(\.findings[0].message) == [
                #"country "ua" must be upper case: UA"#,
                "country is empty; expected an ISO 3166-1 alpha-2 country code",
                #"country "UAX" is not an ISO 3166-1 alpha-2 country code"#,
                #"country "U" is not an ISO 3166-1 alpha-2 country code"#,
                #"country "ÜA" is not an ISO 3166-1 alpha-2 country code"#,
                "score must be a country code text, found number",
            ])
    }
}
