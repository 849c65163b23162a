import Foundation
import Testing

@testable import SeedForge

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
