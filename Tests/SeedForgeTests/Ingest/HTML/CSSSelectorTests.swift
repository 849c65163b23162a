import Foundation
import Testing

@testable import SeedForge

@Suite("Ingest: CSS selectors")
struct CSSSelectorTests {
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
}
