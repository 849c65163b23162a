import Foundation
import Testing

@testable import SeedForge

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
