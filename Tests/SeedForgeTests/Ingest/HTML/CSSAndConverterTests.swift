import Foundation
import Testing

@testable import SeedForge

@Suite("Ingest: CSS selectors and converters")
struct CSSAndConverterTests {
    static let page = Array(
        """
        <html><body><div id="main"><ul>
          <li class="card new" data-sku="A-1"><a href="/a" title="Alpha">A</a></li>
          <li class="card"><a href="b.html" title="Beta's">B</a></li>
          <li class="card sold-out" data-sku="C-3"><span><a href="c.html">C</a></span></li>
        </ul><p class="cardigan">not a card</p></div></body></html>
        """.utf8)

    func names(_ selector: String) throws -> [String] {
        let document = try #require(HTMLDocument(bytes: Self.page, url: "t.html", encoding: "UTF-8"))
        return document.select(try CSSSelector.xpath(selector, relative: false)).map(HTMLDocument.text)
    }

    @Test func theSupportedSubsetSelectsWhatCSSWould() throws {
        #expect(try names("li.card") == ["A", "B", "C"])
        #expect(try names(".card") == ["A", "B", "C"])  // not "cardigan"
        #expect(try names("#main > ul > li.new") == ["A"])
        #expect(try names("li > a") == ["A", "B"])  // child, not descendant
        #expect(try names("li a") == ["A", "B", "C"])
        #expect(try names("[data-sku]") == ["A", "C"])
        #expect(try names("li[data-sku=C-3]") == ["C"])
        #expect(try names("a[href^=\"/\"]") == ["A"])
        #expect(try names("a[href$='.html']") == ["B", "C"])
        #expect(try names("a[title*=et]") == ["B"])
        #expect(try names("li[class~=sold-out]") == ["C"])
        #expect(try names("li:nth-child(2)") == ["B"])
        #expect(try names("li:first-child a, p") == ["A", "not a card"])
        #expect(try names("xpath: //li[3]//a") == ["C"])
    }

    @Test(arguments: [
        "li + li", "li ~ li", "a:hover", "li:nth-child(odd)", "[data-sku|=A]", "li >", "", "li[", ".", "#",
    ])
    func unsupportedSelectorsSaySo(selector: String) {
        #expect(throws: CSSSelector.SyntaxError.self) { try CSSSelector.xpath(selector, relative: false) }
    }

    @Test func quotesInAttributeValuesBecomeValidXPath() throws {
        #expect(CSSSelector.literal("Beta's") == "\"Beta's\"")
        #expect(CSSSelector.literal("a'b\"c") == "concat('a', \"'\", 'b\"c')")
        #expect(try names("a[title=\"Beta's\"]") == ["B"])
    }

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

    @Test func decimalsAreCanonicalAndExact() {
        #expect(ExactDecimal.canonical("051.770") == "51.77")
        #expect(ExactDecimal.canonical("-0.0") == "0")
        #expect(ExactDecimal.canonical("1.") == "1")
        #expect(ExactDecimal.canonical(".5") == "0.5")
        #expect(ExactDecimal.canonical("1e3") == nil)
        #expect(JSONWriter.compact(.decimal("0.30000000000000000001")) == "0.30000000000000000001")
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
