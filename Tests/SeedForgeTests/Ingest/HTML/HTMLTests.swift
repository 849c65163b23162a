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

/// Every robustness case of the HTML source, each with a real malformed page.
@Suite("Ingest: HTML robustness", .serialized)
struct HTMLRobustnessTests {
    static let pipeline = """
        name: pages
        sources:
          items:
            kind: html
            path: "pages/*.html"
            items: li.item
            fields:
              name: {select: span.name, required: true}
              price: {select: span.price, convert: price-amount}
        outputs:
          - {file: items.json, collection: items}
        thresholds: {max-reject-fraction: 1}
        """

    static func page(_ body: String, head: String = #"<meta charset="utf-8">"#) -> String {
        "<html><head>\(head)</head><body><ul>\(body)</ul></body></html>"
    }

    func run(_ files: [String: [UInt8]]) throws -> RunResult {
        let dir = try TempDir()
        for (name, bytes) in files { try dir.write("pages/" + name, bytes: bytes) }
        let pipeline = try Harness.load(Self.pipeline, in: dir)
        return try Runner.run(
            pipeline, options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
    }

    func warnings(_ result: RunResult) -> [String] {
        result.state.warnings.map { "\($0.finding.rule) \($0.finding.location!.file.split(separator: "/").last!)" }
    }

    @Test func unclosedAndMisnestedTagsAreRecovered() throws {
        let html = Self.page(
            #"<li class="item"><span class="name">Alpha<span class="price">£1.50</li><li class="item"><b><i><span class="name">Beta</b></i></span><p>"#
        )
        let result = try run(["broken.html": Array(html.utf8)])
        #expect(result.records("items").map { $0["name"] } == [.string("Alpha£1.50"), .string("Beta")])
        #expect(warnings(result) == ["html-markup broken.html"])
    }

    @Test func aPageDeclaringAnotherCharsetButWrittenInUTF8IsReadAsUTF8() throws {
        let html = Self.page(
            #"<li class="item"><span class="name">Zürich</span></li>"#, head: #"<meta charset="iso-8859-1">"#)
        let result = try run(["mismatch.html": Array(html.utf8)])
        #expect(result.records("items").first?["name"] == .string("Zürich"))
        #expect(warnings(result) == ["charset-mismatch mismatch.html"])
    }

    @Test func invalidUTF8BytesAreReportedAndReadAsWindows1252() throws {
        let parts = Self.page(#"<li class="item"><span class="name">Caf@</span></li>"#).split(separator: "@")
        var bytes = Array(parts[0].utf8)
        bytes += [0xE9]  // é in windows-1252, invalid in UTF-8
        bytes += Array(parts[1].utf8)
        let result = try run(["latin.html": bytes])
        #expect(result.records("items").first?["name"] == .string("Café"))
        let finding = try #require(result.state.warnings.first?.finding)
        #expect(finding.rule == "invalid-utf8")
        #expect(finding.message.contains("declares utf-8 but its bytes are not UTF-8"))
        #expect(finding.location?.line == 1)
    }

    @Test func aMetaCharsetAloneIsHonoured() throws {
        var bytes = Array(
            #"<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252"></head><body><ul><li class="item"><span class="name">Cr"#
                .utf8)
        bytes += [0xE8, 0x6D, 0x65]  // "ème" in windows-1252
        bytes += Array("</span></li></ul></body></html>".utf8)
        let result = try run(["meta.html": bytes])
        #expect(result.records("items").first?["name"] == .string("Crème"))
        #expect(result.state.warnings.isEmpty)
    }

    @Test func emptyBinaryAndItemlessPagesAreWarningsNamingTheFile() throws {
        let result = try run([
            "a-empty.html": [],
            "b-binary.html": [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D],
            "c-none.html": Array(Self.page("<li>no item class here</li>").utf8),
            "d-good.html": Array(Self.page(#"<li class="item"><span class="name">Good</span></li>"#).utf8),
        ])
        #expect(warnings(result) == ["empty-page a-empty.html", "not-html b-binary.html", "no-items c-none.html"])
        #expect(result.records("items").count == 1)
        #expect(result.counts[0].read == 1)  // accounting: only the good item was a record
    }

    @Test func aTwentyMegabytePageIsRead() throws {
        let item =
            #"<li class="item"><span class="name">Item with a fairly long name to fill the page quickly</span><span class="price">£12.34</span></li>"#
        let count = 20_000_000 / item.utf8.count + 1
        let html = Self.page(String(repeating: item, count: count))
        #expect(html.utf8.count > 20_000_000)
        let result = try run(["huge.html": Array(html.utf8)])
        #expect(result.records("items").count == count)
        #expect(result.records("items").last?["price"] == .decimal("12.34"))
    }

    @Test func deeplyNestedMarkupDoesNotCrash() throws {
        let depth = 20_000
        let html = Self.page(
            String(repeating: "<div>", count: depth) + #"<li class="item"><span class="name">Deep</span></li>"#
                + String(repeating: "</div>", count: depth))
        let result = try run(["deep.html": Array(html.utf8)])
        #expect(result.state.warnings.allSatisfy { ["html-markup", "no-items"].contains($0.finding.rule) })
        #expect(result.records("items").count <= 1)
    }

    @Test func aRequiredFieldThatIsMissingNamesPageItemAndSelector() throws {
        let html = Self.page(#"<li class="item"><span class="price">£3</span></li>"#)
        let result = try run(["p.html": Array(html.utf8)])
        let finding = try #require(result.rejects("items").first?.findings.first)
        #expect(finding.rule == "missing-field")
        #expect(finding.location?.pointer == "page 1, item 1, field name (span.name)")
        #expect(finding.location?.file.hasSuffix("pages/p.html") == true)
    }

    @Test func libxml2ParsesSafelyOnSeveralThreads() throws {
        let pages = (0..<64).map { n in
            Array(
                Self.page((0..<50).map { #"<li class="item"><span class="name">P\#(n)-\#($0)</span></li>"# }.joined())
                    .utf8)
        }
        let xpath = try CSSSelector.xpath("li.item span.name", relative: false)
        let results = Threads(4).run(pages.count) { index in
            HTMLDocument(bytes: pages[index], url: "p\(index).html", encoding: "UTF-8").map {
                $0.select(xpath).map(HTMLDocument.text)
            } ?? []
        }
        for (index, names) in results.enumerated() {
            #expect(names == (0..<50).map { "P\(index)-\($0)" })
        }
    }
}

@Suite("Ingest: following next links", .serialized)
struct NextLinkTests {
    static let pipeline = """
        name: follow
        sources:
          items:
            kind: html
            path: site/page-1.html
            next: a.next
            max-pages: MAX
            items: li
            fields: {name: {select: "xpath: .", required: true}}
        outputs:
          - {file: items.json, collection: items}
        """

    func run(_ pages: [String: String], max: Int = 10) throws -> RunResult {
        let dir = try TempDir()
        for (name, html) in pages { try dir.write(name, html) }
        let pipeline = try Harness.load(Self.pipeline.replacingOccurrences(of: "MAX", with: "\(max)"), in: dir)
        return try Runner.run(
            pipeline, options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
    }

    func page(_ item: String, next: String?) -> String {
        "<html><body><ul><li>\(item)</li></ul>\(next.map { #"<a class="next" href="\#($0)">next</a>"# } ?? "")</body></html>"
    }

    @Test func linksAreFollowedInOrder() throws {
        let result = try run([
            "site/page-1.html": page("one", next: "page-2.html"),
            "site/page-2.html": page("two", next: "more/page-3.html#top"),
            "site/more/page-3.html": page("three", next: nil),
        ])
        #expect(result.records("items").map { $0["name"] } == [.string("one"), .string("two"), .string("three")])
        #expect(result.state.warnings.isEmpty)
    }

    @Test func loopsFoldersAndLimitsStopWithAWarning() throws {
        let loop = try run([
            "site/page-1.html": page("one", next: "page-2.html"), "site/page-2.html": page("two", next: "page-1.html"),
        ])
        #expect(loop.records("items").count == 2)
        #expect(loop.state.warnings.first?.finding.message.contains("read already (a loop)") == true)
        let outside = try run([
            "site/page-1.html": page("one", next: "../elsewhere.html"), "elsewhere.html": page("x", next: nil),
        ])
        #expect(outside.records("items").count == 1)
        #expect(outside.state.warnings.first?.finding.message.contains("outside the folder of the start page") == true)
        let web = try run(["site/page-1.html": page("one", next: "https://example.com/page-2.html")])
        #expect(web.state.warnings.first?.finding.message.contains("leaves the saved pages") == true)
        let limited = try run(
            [
                "site/page-1.html": page("one", next: "page-2.html"),
                "site/page-2.html": page("two", next: "page-3.html"), "site/page-3.html": page("three", next: nil),
            ], max: 2)
        #expect(limited.records("items").count == 2)
        #expect(limited.state.warnings.first?.finding.message.contains("max-pages (2) reached") == true)
        // A page that was not saved loses the pages after it: an error (validate keeps checking).
        let missing = try run(["site/page-1.html": page("one", next: "page-9.html")])
        #expect(missing.records("items").count == 1 && missing.state.warnings.isEmpty)
        #expect(
            missing.state.sourceErrors.first?.error.message.contains(
                "page-9.html, which does not exist (a page was not saved)") == true)
    }
}
