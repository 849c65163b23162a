import Foundation
import Testing

@testable import SeedForge

/// `next-page-token`: saved responses of a paginated API, each naming the next file.
@Suite("Ingest: JSON pages chained by a next-page token")
struct NextPageTokenTests {
    static func pipeline(_ extra: String = "") -> String {
        """
        name: n
        sources:
          nearby:
            kind: json
            path: pages/first.json
            records: /results
            next-page-token: /next_page_token
            id: id
        \(extra.isEmpty ? "" : "    " + extra + "\n")    fields: {id: {type: string, from: /place_id}}
        outputs:
          - {file: n.json, collection: nearby}
        """
    }

    static func page(_ ids: [String], next: String?) -> String {
        let results = ids.map { #"{"place_id":"\#($0)"}"# }.joined(separator: ",")
        let token = next.map { #""next_page_token":"\#($0)","# } ?? ""
        return #"{"html_attributions":[],\#(token)"results":[\#(results)],"status":"OK"}"#
    }

    static func ids(_ result: RunResult) -> [String] { result.records("nearby").map { $0["id"]!.string! } }
    static func warnings(_ result: RunResult) -> [String] { result.state.warnings.map(\.finding.message) }

    @Test func pagesAreReadInTokenOrderUntilAPageHasNone() throws {
        let result = try Harness.run(
            Self.pipeline(),
            files: [
                "pages/first.json": Self.page(["a", "b"], next: "tokB"),
                "pages/tokB.json": Self.page(["c"], next: "tokA"),
                "pages/tokA.json": Self.page(["d"], next: ""),
                "pages/unlinked.json": Self.page(["x"], next: nil),
            ])
        #expect(Self.ids(result) == ["a", "b", "c", "d"])  // token order, not name order; the unlinked file is not read
        #expect(result.state.warnings.isEmpty)
        #expect(result.counts.first?.read == 4)
    }

    @Test func aFileTemplateNamesTheFiles() throws {
        let result = try Harness.run(
            Self.pipeline(#"next-page-file: "nearby-{token}.json""#),
            files: [
                "pages/first.json": Self.page(["a"], next: "T2"),
                "pages/nearby-T2.json": Self.page(["b"], next: nil),
            ])
        #expect(Self.ids(result) == ["a", "b"])
    }

    @Test func realTokensNameFilesByTheirSHA256() throws {
        let token = String(repeating: "AW30NDx7hZ_vT3o-", count: 24)  // 384 characters, as real tokens are
        let digest = SHA256.hex(Array(token.utf8))
        let files = [
            "pages/first.json": Self.page(["a"], next: token), "pages/\(digest).json": Self.page(["b"], next: nil),
        ]
        #expect(
            Self.ids(try Harness.run(Self.pipeline(#"next-page-file: "{token-sha256}.json""#), files: files)) == [
                "a", "b",
            ])
        let raw = Harness.sourceError(Self.pipeline(), files: files.mapValues { Array($0.utf8) })
        #expect(
            raw?.message.contains("the next-page token is 384 bytes long, too long for a file name") == true,
            "\(String(describing: raw))")
        #expect(raw?.message.contains(#"next-page-file: "{token-sha256}.json""#) == true)
    }

    @Test func aBrokenChainFailsTheRunAtTheTokenAndValidateKeepsWhatWasRead() throws {
        let missing = ["pages/first.json": Self.page(["a"], next: "gone")]
        let error = try #require(Harness.sourceError(Self.pipeline(), files: missing.mapValues { Array($0.utf8) }))
        #expect(
            error.message.contains(
                "gone.json, which does not exist (a page was not saved); the pages after this one are not read"),
            "\(error.message)")
        #expect(
            error.location.file.hasSuffix("first.json") && error.location.pointer == "/next_page_token"
                && error.location.column > 1)
        let validated = try Harness.run(Self.pipeline(), files: missing)
        #expect(Self.ids(validated) == ["a"] && validated.state.sourceErrors.count == 1)

        let number = Harness.sourceError(
            Self.pipeline(),
            files: ["pages/first.json": Array(#"{"next_page_token": 42, "results": [{"place_id":"a"}]}"#.utf8)])
        #expect(
            number?.message
                == "the next-page token at /next_page_token is 42, not text; the pages after this one are not read")
        let escape = Harness.sourceError(
            Self.pipeline(), files: ["pages/first.json": Array(Self.page(["a"], next: "../../etc/passwd").utf8)])
        #expect(escape?.message.contains("cannot name a file beside this page") == true)
    }

    @Test func loopsAndThePageLimitStopWithAWarningAndKeepWhatWasRead() throws {
        let loop = try Harness.run(
            Self.pipeline(),
            files: [
                "pages/first.json": Self.page(["a"], next: "two"),
                "pages/two.json": Self.page(["b"], next: "first"),
            ])
        #expect(Self.ids(loop) == ["a", "b"])
        #expect(Self.warnings(loop).first?.contains("read already (a loop)") == true, "\(Self.warnings(loop))")

        let limited = try Harness.run(
            Self.pipeline("max-pages: 2"),
            files: [
                "pages/first.json": Self.page(["a"], next: "p2"),
                "pages/p2.json": Self.page(["b"], next: "p3"),
                "pages/p3.json": Self.page(["c"], next: nil),
            ])
        #expect(Self.ids(limited) == ["a", "b"])
        #expect(Self.warnings(limited).first?.contains("max-pages (2) reached") == true)
    }

    @Test func aSyntaxErrorInAFollowedPageFailsTheRunNamingIt() {
        let error = Harness.sourceError(
            Self.pipeline(),
            files: [
                "pages/first.json": Array(Self.page(["a"], next: "p2").utf8),
                "pages/p2.json": Array(#"{"results": [{"place_id": "b",}]}"#.utf8),
            ])
        #expect(
            error?.location.file.hasSuffix("p2.json") == true && error?.location.line == 1,
            "\(String(describing: error))")
    }

    @Test func aSavedErrorResponseFailsTheRunAndValidateReportsIt() throws {
        let yaml = Self.pipeline("expect: {/status: [OK, ZERO_RESULTS]}")
        let files = [
            "pages/first.json": Self.page(["a"], next: "p2"),
            "pages/p2.json":
                #"{"error_message": "You have exceeded your daily request quota.", "results": [], "status": "OVER_QUERY_LIMIT"}"#,
        ]
        let error = Harness.sourceError(yaml, files: files.mapValues { Array($0.utf8) })
        #expect(
            error?.message
                == #"expected "OK" or "ZERO_RESULTS" at /status (the source's 'expect'), found "OVER_QUERY_LIMIT"; this file's records are not read"#,
            "\(String(describing: error))")
        #expect(error?.location.file.hasSuffix("p2.json") == true && error?.location.pointer == "/status")
        let validated = try Harness.run(yaml, files: files)
        #expect(Self.ids(validated) == ["a"] && validated.state.sourceErrors.count == 1)
        #expect(
            try Harness.run(yaml, files: ["pages/first.json": #"{"results": [], "status": "ZERO_RESULTS"}"#]).state
                .sourceErrors.isEmpty)
        let missing = Harness.sourceError(yaml, files: ["pages/first.json": Array(#"{"results": []}"#.utf8)])
        #expect(missing?.message.contains("found nothing") == true)
        #expect(
            Harness.definitionErrors(Self.pipeline("expect: {status: OK}"), files: ["pages/first.json": "{}"]).first?
                .message.contains("JSON Pointers such as /status") == true)
    }

    @Test func definitionMistakesAreErrors() {
        func messages(_ yaml: String) -> [String] {
            Harness.definitionErrors(yaml, files: ["pages/first.json": "{}", "pages/second.json": "{}"]).map(\.message)
        }
        #expect(
            messages(Self.pipeline().replacingOccurrences(of: "pages/first.json", with: "pages/*.json"))
                .contains { $0.contains("give 'path' a single file, not the glob") })
        #expect(
            messages(Self.pipeline(#"next-page-file: "page.json""#)).contains {
                $0.contains("must be a file name holding {token} or {token-sha256}")
            })
        #expect(
            messages(Self.pipeline(#"next-page-file: "sub/{token}.json""#)).contains {
                $0.contains("must be a file name holding {token} or {token-sha256}")
            })
        #expect(
            messages(Self.pipeline().replacingOccurrences(of: "    records: /results\n", with: "")).contains {
                $0.contains("'next-page-token' needs 'records'")
            })
        #expect(messages(Self.pipeline("max-pages: 0")).contains { $0.contains("'max-pages' must be at least 1") })
        #expect(
            messages(
                Self.pipeline().replacingOccurrences(
                    of: "    next-page-token: /next_page_token\n", with: "    max-pages: 3\n")
            )
            .contains { $0.contains("'max-pages' needs 'next-page-token'") })
    }

    static let chain = """
        name: n
        sources:
          nearby:
            kind: json
            path: np/search.json
            records: /results
            next-page-token: /next_page_token
            next-page-file: "{token}"
            fields: {id: {type: string, from: /place_id}}
        outputs:
          - {file: n.json, collection: nearby}
        """

    @Test func aSymlinkedFirstPageIsNotReadTwice() throws {
        let dir = try TempDir()
        try dir.write("np/real", #"{"next_page_token": "B", "results": [{"place_id": "r1"}]}"#)
        try dir.write("np/B", #"{"next_page_token": "real", "results": [{"place_id": "b1"}]}"#)
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/np/search.json", withDestinationPath: "real")
        let path = try dir.write("p.yml", Self.chain)
        let result = try Runner.run(
            try Loader.load(path: path),
            options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
        #expect(result.records("nearby").map { $0["id"]! } == [.string("r1"), .string("b1")])
        #expect(result.state.warnings.first?.finding.message.contains("read already (a loop)") == true)
    }

    @Test func aTokenNamingAFolderIsAClearError() throws {
        let dir = try TempDir()
        try dir.write("np/search.json", #"{"next_page_token": "sub", "results": [{"place_id": "r1"}]}"#)
        try dir.write("np/sub/x.json", "{}")
        let path = try dir.write("p.yml", Self.chain)
        let run = try CLI.run(["run", path, "--out", dir.path + "/out"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("which is a folder, not a saved page"), "\(run.stderr)")
    }

    static func expecting(_ expect: String, _ page: String) throws -> (SourceError?, RunResult) {
        let yaml = """
            name: e
            sources:
              api: {kind: json, path: page.json, records: /results, expect: \(expect), fields: {id: string}}
            outputs:
              - {file: a.json, collection: api}
            """
        return (
            Harness.sourceError(yaml, files: ["page.json": Array(page.utf8)]),
            try Harness.run(yaml, files: ["page.json": page])
        )
    }

    @Test func expectTreatsAMissingValueAsNullAndComesBeforeTheRecordsPointer() throws {
        let (absent, _) = try Self.expecting(
            "{/status: OK, /error_message: null}", #"{"results": [{"id": "a"}], "status": "OK"}"#)
        #expect(absent == nil)
        let (failed, validated) = try Self.expecting(
            "{/status: OK}", #"{"error_message": "quota", "status": "OVER_QUERY_LIMIT"}"#)
        #expect(
            failed?.message.hasPrefix(#"expected "OK" at /status (the source's 'expect'), found "OVER_QUERY_LIMIT""#)
                == true, "\(String(describing: failed))")
        #expect(validated.state.sourceErrors.count == 1)
        // Only true and false are booleans: NO is Norway.
        let (norway, _) = try Self.expecting("{/region: [NO, SE]}", #"{"results": [], "region": "NO"}"#)
        #expect(norway == nil, "\(String(describing: norway))")
        #expect(
            Harness.definitionErrors(
                """
                name: e
                sources:
                  api: {kind: json, path: data.json, expect: {/status: OK}, fields: {id: string}}
                outputs:
                  - {file: a.json, collection: api}
                """
            ).first?.message.contains("'expect' needs 'records'") == true)
    }
}
