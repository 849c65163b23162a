import Foundation
import Testing

@testable import SeedForge

@Suite("Normalize: converters of scraped text")
struct ConvertersTests {
    @Test(arguments: [
        ("£51.77", "51.77", "GBP"), ("$1,299.00", "1299", "USD"), ("1.234,56 €", "1234.56", "EUR"),
        ("EUR 12", "12", "EUR"),
        ("12,50 EUR", "12.5", "EUR"), ("¥1,200", "1200", "JPY"), ("R$ 1.999,90", "1999.9", "BRL"),
        ("CHF 7.05", "7.05", "CHF"),
        ("\u{00A0}£ 0.99 ", "0.99", "GBP"), ("1 299,00 €", "1299", "EUR"),
    ])
    func pricesBecomeExactAmountsAndCurrencies(text: String, amount: String, currency: String) throws {
        let price = try #require(Converters.price(text))
        #expect(price.amount == amount)
        #expect(price.currency == currency)
    }

    @Test func notPricesAreRefused() {
        #expect(Converters.price("Sold out") == nil)
        #expect(Converters.price("call us") == nil)
        #expect(Converters.price("12")?.currency == nil)
    }

    @Test func urlsResolveAgainstThePage() {
        let page = URL(string: "https://shop.example.com/catalogue/page-2.html")
        #expect(
            Converters.absoluteURL("products/a.html", base: page)
                == "https://shop.example.com/catalogue/products/a.html")
        #expect(Converters.absoluteURL("../media/a.jpg", base: page) == "https://shop.example.com/media/a.jpg")
        #expect(Converters.absoluteURL("/top.html", base: page) == "https://shop.example.com/top.html")
        #expect(Converters.absoluteURL("https://cdn.example.com/x.jpg", base: page) == "https://cdn.example.com/x.jpg")
        #expect(Converters.absoluteURL("  ", base: page) == nil)
        // The byte-level fast path and Foundation's resolution agree on every shape.
        #expect(
            Converters.absoluteURL(" \tproducts/a.html\n", base: page)
                == "https://shop.example.com/catalogue/products/a.html")
        #expect(Converters.absoluteURL("a/./b.html", base: page) == "https://shop.example.com/catalogue/a/b.html")
        #expect(Converters.absoluteURL("a/../b.html", base: page) == "https://shop.example.com/catalogue/b.html")
        #expect(Converters.absoluteURL("a/..", base: page) == "https://shop.example.com/catalogue/")
        #expect(Converters.absoluteURL("a/.hidden/b", base: page) == "https://shop.example.com/catalogue/a/.hidden/b")
        #expect(
            Converters.absoluteURL("b.html?x=1#top", base: page) == "https://shop.example.com/catalogue/b.html?x=1#top")
        #expect(
            Converters.absoluteURL("\u{00A0}b.html\u{00A0}", base: page) == "https://shop.example.com/catalogue/b.html")
        for plain in ["a.html", "a/b/c.html", "a//b", "a/.b", "a/b..", "x_1/index.html"] {
            #expect(Converters.isPlainRelative(plain), "\(plain)")
        }
        for other in [
            "", "/a", ".a", "./a", "a/./b", "a/../b", "a/..", "a/.", "a b", "a\tb", "a:b", "a?b", "a#b",
            "a%20b", "a\\b",
        ] {
            #expect(!Converters.isPlainRelative(other), "\(other)")
        }
    }
}
