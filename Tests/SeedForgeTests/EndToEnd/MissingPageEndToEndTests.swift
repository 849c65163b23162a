import Foundation
import Testing

/// Issue 18: a places API page whose `next_page_token` file was not saved failed the run
/// with no option. `on-missing-page: warn` keeps what was read, warns, and the manifest
/// says the source is incomplete. The default still fails.
@Suite("End to end: on-missing-page", .serialized)
struct MissingPageEndToEndTests {
    /// The saved nearby-search pages of the places fixture without the third page.
    static func workspace(onMissingPage: String?) throws -> TempDir {
        let dir = try TempDir()
        let nearby = CLI.repoRoot.appendingPathComponent("Fixtures/places/nearby")
        for name in ["search.json", "ff970d4665ac5bf5813ff2893d56f4d611b32f11257266fd48a83cca534d8fd7.json"] {
            try dir.write("nearby/" + name, bytes: [UInt8](Data(contentsOf: nearby.appendingPathComponent(name))))
        }
        try dir.write(
            "nearby.yml",
            """
            name: nearby
            sources:
              nearby:
                kind: json
                path: nearby/search.json
                records: /results
                next-page-token: /next_page_token
                next-page-file: "{token-sha256}.json"
            \(onMissingPage.map { "    on-missing-page: \($0)\n" } ?? "")    id: id
                fields: {id: {type: string, from: /place_id}, name: string}
            outputs:
              - {file: nearby.json, collection: nearby}
            """)
        return dir
    }

    @Test func warnKeepsThePagesReadAndTheManifestSaysIncomplete() throws {
        let dir = try Self.workspace(onMissingPage: "warn")
        let result = try CLI.run(["run", "nearby.yml", "--out", "out"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("nearby: wrote 10 nearby"), "\(result.stdout)")
        #expect(result.stdout.contains("1 warning"), "\(result.stdout)")
        let warnings = try dir.read("out/nearby/warnings.ndjson")
        #expect(warnings.contains(#""rule":"missing-page""#), "\(warnings)")
        #expect(
            warnings.contains(
                "3ed3f7cf281887a0c863118e4d37e7b3656327523915ee6cacc935da51d45675.json, which does not exist"),
            "\(warnings)")
        let manifest = try #require(jsonObject(dir.bytes("out/nearby/manifest.json")) as? [String: Any])
        let incomplete = try #require(manifest["incomplete"] as? [[String: String]])
        #expect(
            incomplete == [
                [
                    "collection": "nearby",
                    "page": "nearby/ff970d4665ac5bf5813ff2893d56f4d611b32f11257266fd48a83cca534d8fd7.json",
                    "missing": "nearby/3ed3f7cf281887a0c863118e4d37e7b3656327523915ee6cacc935da51d45675.json",
                ]
            ])
    }

    @Test func theDefaultStillFails() throws {
        let dir = try Self.workspace(onMissingPage: nil)
        let result = try CLI.run(["run", "nearby.yml", "--out", "out"], cwd: dir.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("which does not exist (a page was not saved)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out/nearby"))
    }

    @Test func onMissingPageNeedsASourceThatFollowsPages() throws {
        let dir = try TempDir()
        try dir.write("data.json", "[]")
        try dir.write(
            "p.yml",
            """
            name: t
            sources:
              items: {kind: json, path: data.json, on-missing-page: warn, fields: {id: string}}
            outputs:
              - {file: items.json, collection: items}
            """)
        let result = try CLI.run(["lint", "p.yml"], cwd: dir.path)
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("p.yml:3:") && result.stderr.contains("'on-missing-page' needs 'next-page-token'"),
            "\(result.stderr)")
    }
}
