import Foundation
import Testing

@testable import SeedForge

/// HTML pages as crawlers save them: charsets and byte order marks, NUL bytes, prices,
/// start pages and next links through dots and symbolic links, sub-folders, class words
/// and computed XPath text, CSS edge cases.
@Suite("Ingest: HTML charsets, prices, pages and selectors", .serialized)
struct HTMLPagesTests {
    func run(_ pipeline: String, _ files: [String: [UInt8]], threads: Int = 2, write: Bool = false) throws -> RunResult
    {
        let dir = try TempDir()
        for (name, bytes) in files { try dir.write(name, bytes: bytes) }
        let loaded = try Harness.load(pipeline, in: dir)
        return try Runner.run(
            loaded,
            options: RunOptions(
                outputRoot: dir.path + "/out", writeOutputs: write, logger: Harness.silent, threads: threads))
    }

    static let glob = """
        name: r
        sources:
          items:
            kind: html
            path: "pages/*.html"
            items: li.item
            base-url: https://shop.example.com/catalogue/
            fields:
              name: {select: span.name, required: true}
              price: {select: span.price, convert: price-amount}
              link: {select: a, take: "attr:href", convert: url}
        outputs:
          - {file: items.json, collection: items}
        thresholds: {max-reject-fraction: 1}
        """

    func page(_ items: String, head: String = #"<meta charset="utf-8">"#) -> [UInt8] {
        Array("<html><head>\(head)</head><body><ul>\(items)</ul></body></html>".utf8)
    }

    @Test func aNULByteAfterEightKilobytesIsReplacedNotTheEndOfThePage() throws {
        var bytes = Array(#"<html><body><ul><li class="item"><span class="name">before</span></li><!-- "#.utf8)
        bytes += Array(repeating: UInt8(ascii: "x"), count: 9_000)
        bytes +=
            Array(" --><p>".utf8) + [0]
            + Array(#"</p><li class="item"><span class="name">after</span></li></ul></body></html>"#.utf8)
        let result = try run(Self.glob, ["pages/p.html": bytes])
        #expect(result.records("items").map { $0["name"] } == [.string("before"), .string("after")])
        #expect(result.state.warnings.map(\.finding.rule) == ["nul-bytes"])
    }

    @Test func charsetLabelsAreReadAsBrowsersReadThem() throws {
        let latin1 = page(
            #"<li class="item"><span class="name">Caf@</span><span class="price">@12</span></li>"#,
            head: #"<meta charset="iso-8859-1">"#)
        var bytes: [UInt8] = []
        var marks = 0
        for byte in latin1 {
            if byte == UInt8(ascii: "@") {
                bytes.append(marks == 0 ? 0xE9 : 0x80)  // é, then € in windows-1252
                marks += 1
            } else {
                bytes.append(byte)
            }
        }
        let result = try run(Self.glob, ["pages/latin.html": bytes])
        #expect(result.records("items").first?["name"] == .string("Café"))
        #expect(result.records("items").first?["price"] == .decimal("12"))
        var utf16Meta = page(
            #"<li class="item"><span class="name">Caf@</span></li>"#, head: #"<meta charset="utf-16">"#)
        utf16Meta[utf16Meta.firstIndex(of: UInt8(ascii: "@"))!] = 0xE9
        let wrong = try run(Self.glob, ["pages/u.html": utf16Meta])
        #expect(wrong.records("items").first?["name"] == .string("Café"))
        #expect(wrong.state.warnings.map(\.finding.rule) == ["invalid-utf8"])
        var unknown = page(
            #"<li class="item"><span class="name">Caf@</span></li>"#, head: #"<meta charset="x-foo-bar">"#)
        unknown[unknown.firstIndex(of: UInt8(ascii: "@"))!] = 0xE9
        #expect(try run(Self.glob, ["pages/x.html": unknown]).state.warnings.map(\.finding.rule) == ["charset-unknown"])
    }

    @Test func utf16PagesWithAByteOrderMarkAreRead() throws {
        let text = String(decoding: page(#"<li class="item"><span class="name">Zürich</span></li>"#), as: UTF8.self)
        let bytes: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let result = try run(Self.glob, ["pages/u16.html": bytes])
        #expect(result.records("items").first?["name"] == .string("Zürich"))
        #expect(
            try run(Self.glob, ["pages/bom.html": [0xEF, 0xBB, 0xBF]]).state.warnings.map(\.finding.rule) == [
                "empty-page"
            ])
    }

    @Test(
        arguments: [
            ("0,500 €", "0.5", "EUR"), ("$0.125", "0.125", "USD"), ("BHD 1.250", "1.25", "BHD"), ("1,299", "1299", nil),
            ("-£3.50", "-3.5", "GBP"),
        ] as [(String, String, String?)])
    func pricesThatWereMisread(text: String, amount: String, currency: String?) throws {
        let price = try #require(Converters.price(text))
        #expect(price.amount == amount)
        #expect(price.currency == currency)
    }

    @Test func ambiguousPricesAreRefused() {
        #expect(Converters.price("£20 £15") == nil)
        #expect(Converters.price("£5 USD") == nil)
        #expect(Converters.number("1,5") == nil)
        #expect(Converters.number("1,234.5") == 1234.5)
        #expect(Converters.absoluteURL("javascript:void(0)", base: nil) == nil)
    }

    @Test func theStartPageIsNotReadTwiceWhenItsPathHasDots() throws {
        let pipeline = """
            name: loop
            sources:
              items:
                kind: html
                path: ../site/./page-1.html
                next: a.next
                items: li
                fields: {name: {select: "xpath: .", required: true}}
            outputs:
              - {file: i.json, collection: items}
            """
        let dir = try TempDir()
        try dir.write(
            "site/page-1.html",
            #"<html><body><ul><li>P1</li></ul><a class="next" href="page-2.html">n</a></body></html>"#)
        try dir.write(
            "site/page-2.html",
            #"<html><body><ul><li>P2</li></ul><a class="next" href="./page-1.html?sort=price#top">n</a></body></html>"#)
        let loaded = try Harness.load(pipeline, in: TempDir.nested(dir, "pipelines"))
        let result = try Runner.run(
            loaded, options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
        #expect(result.records("items").map { $0["name"] } == [.string("P1"), .string("P2")])
        #expect(result.state.warnings.first?.finding.message.contains("a loop") == true)
    }

    @Test func aNextLinkCannotLeaveThroughASymbolicLink() throws {
        let dir = try TempDir()
        try dir.write("outside/secret.html", "<html><body><ul><li>SECRET</li></ul></body></html>")
        try dir.write(
            "site/page-1.html",
            #"<html><body><ul><li>P1</li></ul><a class="next" href="sub/secret.html">n</a></body></html>"#)
        try FileManager.default.createSymbolicLink(
            atPath: dir.path + "/site/sub", withDestinationPath: dir.path + "/outside")
        let loaded = try Harness.load(
            """
            name: s
            sources:
              items: {kind: html, path: site/page-1.html, next: a.next, items: li, fields: {name: {select: "xpath: ."}}}
            outputs:
              - {file: i.json, collection: items}
            """, in: dir)
        let result = try Runner.run(
            loaded, options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
        #expect(result.records("items").count == 1)
        #expect(result.state.warnings.first?.finding.message.contains("outside the folder of the start page") == true)
    }

    /// A data folder reached through a symbolic link (`data` → a bigger disk) gives the same
    /// page addresses, and so the same links, as a plain folder: the source's root and its
    /// pages are named the same way.
    @Test func pagesInALinkedDataFolderResolveLinksAsInAPlainOne() throws {
        let pipeline = Self.glob.replacingOccurrences(
            of: #"path: "pages/*.html""#, with: #"path: "../data/pages/*.html""#)
        let bytes = page(#"<li class="item"><span class="name">A</span><a href="a-1/index.html">a</a></li>"#)
        var links: [Value?] = []
        for linked in [false, true] {
            let dir = try TempDir()
            try dir.write((linked ? "disk" : "data") + "/pages/p.html", bytes: bytes)
            if linked {
                try FileManager.default.createSymbolicLink(
                    atPath: dir.path + "/data", withDestinationPath: dir.path + "/disk")
            }
            let loaded = try Loader.load(path: dir.write("pipelines/pipeline.yml", pipeline))
            let result = try Runner.run(
                loaded, options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
            links += result.records("items").map { $0["link"] }
        }
        #expect(links == Array(repeating: .string("https://shop.example.com/catalogue/a-1/index.html"), count: 2))
    }

    @Test func aGlobWithNextIsADefinitionError() {
        let errors = Harness.definitionErrors(
            Self.glob.replacingOccurrences(of: "    items: li.item", with: "    items: li.item\n    next: a.next"),
            files: ["pages/a.html": "<html></html>"])
        #expect(errors.first?.message.contains("give 'path' a single file, not the glob") == true, "\(errors)")
    }

    @Test func validateReportsTheSameWithOneOrTwoThreads() throws {
        let files: [String: [UInt8]] = [
            "pages/a.html": page(#"<li class="item"><span class="name">A</span><span class="price">£1</span></li>"#),
            "pages/b.html": [0x1F, 0x8B, 0x08, 0x00, 0x01, 0x02],
            "pages/c.html": page(#"<li class="item"><span class="name">C</span><span class="price">free</span></li>"#),
        ]
        func report(_ threads: Int) throws -> [String] {
            var report = ValidationReport()
            report.add(try run(Self.glob, files, threads: threads))
            return report.sorted.map {
                "\($0.finding.rule) \($0.finding.location?.file.split(separator: "/").last ?? "")"
            }
        }
        #expect(try report(1) == report(2))
        #expect(try report(2) == ["source b.html", "price c.html"])
    }

    @Test func pagesInSubFoldersKeepTheirFolderInAddresses() throws {
        let pipeline = Self.glob.replacingOccurrences(of: #"path: "pages/*.html""#, with: #"path: "pages/*/*.html""#)
        let result = try run(
            pipeline,
            [
                "pages/a/p.html": page(#"<li class="item"><span class="name">A</span><a href="x.html">x</a></li>"#),
                "pages/b/p.html": page(#"<li class="item"><span class="name">B</span><a href="x.html">x</a></li>"#),
            ])
        #expect(
            result.records("items").map { $0["link"] } == [
                .string("https://shop.example.com/catalogue/a/x.html"),
                .string("https://shop.example.com/catalogue/b/x.html"),
            ])
    }

    @Test func classWordsSplitOnAnyWhiteSpaceAndXPathCanComputeText() throws {
        let pipeline = """
            name: c
            sources:
              items:
                kind: html
                path: "pages/*.html"
                items: li
                fields:
                  rating: {select: p, take: class, map: {Four: 4}}
                  label: {select: "xpath: normalize-space(concat(.//b, ' ', .//i))"}
            outputs:
              - {file: i.json, collection: items}
            """
        let result = try run(
            pipeline,
            [
                "pages/p.html": Array(
                    "<html><body><ul><li><p class=\"star-rating\tFour\">*</p><b>Big</b><i>Deal</i></li></ul></body></html>"
                        .utf8)
            ])
        #expect(result.records("items").first?["rating"] == .int(4))
        #expect(result.records("items").first?["label"] == .string("Big Deal"))
    }

    @Test func cssEdgeCasesFollowCSS() throws {
        let document = try #require(
            HTMLDocument(
                bytes: Array(#"<html><body><a HREF="x.html" title="t">A</a><a>B</a></body></html>"#.utf8), url: "t",
                encoding: "UTF-8"))
        func names(_ css: String) throws -> [String] {
            document.select(try CSSSelector.xpath(css, relative: false)).map(HTMLDocument.text)
        }
        #expect(try names("a[href$=\"\"]").isEmpty)
        #expect(try names("a[title^='']").isEmpty)
        #expect(try names("a[HREF]") == ["A"])
        #expect(try names("body\ta") == ["A", "B"])
    }
}

extension TempDir {
    /// A sub-folder of `dir` (created), as a TempDir-like place for a pipeline file.
    static func nested(_ dir: TempDir, _ name: String) throws -> TempDir {
        let nested = try TempDir()
        try FileManager.default.removeItem(at: nested.url)
        try FileManager.default.createDirectory(atPath: dir.path + "/" + name, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: nested.path, withDestinationPath: dir.path + "/" + name)
        return nested
    }
}
