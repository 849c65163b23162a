import Foundation
import Testing

@testable import SeedForge

/// Issue 14: an html field that takes every match (`all`, `join`), and `next-page-file`
/// for pages a crawler saved under its own names (`quotes-2.html` for `/page/2/`).
@Suite("Ingest: HTML list fields and saved-page names", .serialized)
struct HTMLListFieldsTests {
    func run(_ pipeline: String, _ files: [String: String]) throws -> RunResult {
        let dir = try TempDir()
        for (name, text) in files { try dir.write(name, text) }
        let loaded = try Harness.load(pipeline, in: dir)
        return try Runner.run(
            loaded, options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
    }

    static func pipeline(fields: String, source: String = "    path: \"p.html\"") -> String {
        """
        name: r
        sources:
          quotes:
            kind: html
        \(source)
            items: div.quote
            fields:
        \(fields)
        outputs:
          - {file: quotes.json, collection: quotes}
        thresholds: {max-reject-fraction: 1}
        """
    }

    static func quote(_ text: String, tags: [String]) -> String {
        #"<div class="quote"><span class="text">\#(text)</span><div class="tags">"#
            + tags.map { #"<a class="tag" href="/tag/\#($0)/"> \#($0) </a>"# }.joined()
            + "<a class=\"tag\"></a></div></div>"
    }

    @Test func allTakesEveryMatchAsAnArrayAndJoinAsOneText() throws {
        let fields = """
                  text: {select: span.text}
                  tags: {select: div.tags a.tag, all: true}
                  line: {select: div.tags a.tag, join: " | "}
                  links: {select: div.tags a.tag, take: "attr:href", all: true, convert: url}
            """
        let page =
            "<html><body>" + Self.quote("One", tags: ["change", "deep-thoughts"]) + Self.quote("Two", tags: [])
            + "</body></html>"
        let result = try run(
            Self.pipeline(fields: fields, source: "    path: \"p.html\"\n    base-url: https://quotes.example.com/"),
            ["p.html": page])
        let records = result.records("quotes")
        #expect(records.map { $0["tags"] } == [.array([.string("change"), .string("deep-thoughts")]), .null])
        #expect(records.map { $0["line"] } == [.string("change | deep-thoughts"), .null])
        #expect(
            records.first?["links"]
                == .array([
                    .string("https://quotes.example.com/tag/change/"),
                    .string("https://quotes.example.com/tag/deep-thoughts/"),
                ]))
        #expect(result.rejects("quotes").isEmpty)
        let schema = try #require(result.state.schemas["quotes"])
        #expect(schema.fields.map(\.type) == [.string, .array, .string, .array])
    }

    @Test func aRequiredListWithoutMatchesRejectsItsItem() throws {
        let fields = "      tags: {select: div.tags a.tag, all: true, required: true}"
        let page = "<html><body>" + Self.quote("One", tags: ["a"]) + Self.quote("Two", tags: []) + "</body></html>"
        let result = try run(Self.pipeline(fields: fields), ["p.html": page])
        #expect(result.records("quotes").count == 1)
        #expect(result.rejectedRules("quotes") == ["missing-field"])
        #expect(
            result.rejects("quotes").first?.findings.first?.location?.pointer
                == "page 1, item 2, field tags (div.tags a.tag)")
    }

    @Test func listDefinitionMistakesAreCaughtAtLoad() throws {
        func errors(_ field: String) -> [String] {
            Harness.definitionErrors(Self.pipeline(fields: "      tags: " + field), files: ["p.html": ""]).map(
                \.message)
        }
        #expect(errors("{select: a, all: true, type: string}").contains { $0.contains("so it is an array") })
        #expect(
            errors("{select: a, join: \",\", map: {x: 1}}").contains { $0.contains("leave out 'map' and 'convert'") })
        #expect(errors("{select: a, join: \",\", all: false}").contains { $0.contains("needs all: true") })
    }

    static let pager = #"<ul class="pager"><li class="next"><a href="/page/NEXT/">Next</a></li></ul>"#

    func savedPages(last: Int = 3) -> [String: String] {
        var files: [String: String] = [:]
        for number in 1...last {
            let next = number < 3 ? Self.pager.replacingOccurrences(of: "NEXT", with: String(number + 1)) : ""
            files["quotes-\(number).html"] =
                "<html><body>" + Self.quote("Q\(number)", tags: []) + next + "</body></html>"
        }
        return files
    }

    @Test func nextPageFileMapsASiteLinkToTheSavedFile() throws {
        let fields = "      text: {select: span.text}"
        for rule in [#"{link: "^/page/(\\d+)/$", file: "quotes-$1.html"}"#, #""quotes-{page}.html""#] {
            let source = "    path: quotes-1.html\n    next: li.next > a\n    next-page-file: \(rule)"
            let result = try run(Self.pipeline(fields: fields, source: source), savedPages())
            #expect(
                result.records("quotes").map { $0["text"] } == [.string("Q1"), .string("Q2"), .string("Q3")], "\(rule)")
            #expect(result.state.warnings.isEmpty, "\(result.state.warnings.map(\.finding.message))")
        }
        // Without it, the site-root link stops the run at page 1 with a warning.
        let plain = try run(
            Self.pipeline(fields: fields, source: "    path: quotes-1.html\n    next: li.next > a"), savedPages())
        #expect(plain.records("quotes").count == 1)
        #expect(plain.state.warnings.map(\.finding.rule) == ["next-link"])
    }

    @Test func aLinkOutsideThePatternStopsWithAWarningAndAMissingFileFails() throws {
        let fields = "      text: {select: span.text}"
        let source =
            #"    path: quotes-1.html\#n    next: li.next > a\#n    next-page-file: {link: "^/p/(\\d+)$", file: "q-$1.html"}"#
        let result = try run(Self.pipeline(fields: fields, source: source), savedPages())
        #expect(
            result.state.warnings.first?.finding.message.contains("does not match next-page-file's link pattern")
                == true)
        let dir = try TempDir()
        for (name, text) in savedPages(last: 2) { try dir.write(name, text) }
        let template = "    path: quotes-1.html\n    next: li.next > a\n    next-page-file: \"quotes-{page}.html\""
        let loaded = try Harness.load(Self.pipeline(fields: fields, source: template), in: dir)
        #expect(throws: SourceError.self) {
            try Runner.run(loaded, options: RunOptions(outputRoot: dir.path + "/out", logger: Harness.silent))
        }
    }

    @Test func nextPageFileMistakesAreCaughtAtLoad() throws {
        func errors(_ source: String) -> [String] {
            Harness.definitionErrors(
                Self.pipeline(fields: "      text: {select: span.text}", source: source), files: ["q.html": ""]
            ).map(\.message)
        }
        #expect(
            errors("    path: q.html\n    next-page-file: \"q-{page}.html\"").contains { $0.contains("needs 'next'") })
        #expect(
            errors("    path: q.html\n    next: a\n    next-page-file: q.html").contains {
                $0.contains("must hold {page}")
            })
        #expect(
            errors("    path: q.html\n    next: a\n    next-page-file: {link: \"/p/\", file: \"q-$1.html\"}").contains {
                $0.contains("uses $1, but 'link' has 0 groups")
            })
    }
}
