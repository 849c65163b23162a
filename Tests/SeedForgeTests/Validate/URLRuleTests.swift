import Testing

@testable import SeedForge

/// `validate: url`: absolute http and https addresses only.
@Suite("Validate: url")
struct URLRuleTests {
    @Test(arguments: [
        ("https://thehouseofhoney.com.au", true), ("http://example.com/a?b=c#d", true), ("HTTPS://EXAMPLE.COM", true),
        ("www.honeyland.example.com", false), ("ftp://example.com/file", false), ("https://", false),
        ("javascript:alert(1)", false), ("https://exa mple.com", false), ("/relative/path", false), ("", false),
    ])
    func urlAcceptsAbsoluteHTTPOnly(url: String, valid: Bool) throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nwebsite: string",
            steps: "- validate: url\n  collection: items\n  field: website",
            records: "[{\"id\":1,\"website\":\"\(url)\"}]")
        #expect(result.rejects("items").isEmpty == valid, "\(url)")
    }
}
