import Testing

@testable import SeedForge

@Suite("Normalize: convert")
struct ConvertTests {
    @Test func convertersWorkOnAnySource() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nprice: string\nlink: string\nlabel: string",
            steps: """
                - {normalize: convert, collection: items, field: price, to: price-amount, into: amount}
                - {normalize: convert, collection: items, field: price, to: price-currency, into: currency}
                - {normalize: convert, collection: items, field: link, to: url, base-url: "https://shop.example.com/c/"}
                - {normalize: convert, collection: items, field: label, to: text}
                """,
            records:
                #"[{"id": 1, "price": "1.234,56 €", "link": "p/a.html", "label": "Fish &amp; Chips &eacute;&#233;&#x41;\n  now"}, {"id": 2, "price": "free", "link": "x"}]"#
        )
        let first = try #require(result.records("items").first)
        #expect(first["amount"] == .decimal("1234.56"))
        #expect(first["currency"] == .string("EUR"))
        #expect(first["link"] == .string("https://shop.example.com/c/p/a.html"))
        #expect(first["label"] == .string("Fish & Chips ééA now"))
        #expect(result.rejects("items").map { $0.findings.map(\.rule) } == [["price"]])
        #expect(result.rejects("items").first?.findings.first?.message == "price: cannot read a price from 'free'")
    }

    @Test func entitiesThatAreNotEntitiesStay() {
        #expect(Convert.decodeEntities("AT&T & co; &nosuch; &#xZZ;") == "AT&T & co; &nosuch; &#xZZ;")
    }
}
