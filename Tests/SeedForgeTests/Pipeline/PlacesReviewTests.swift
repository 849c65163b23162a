import Foundation
import Testing

@testable import SeedForge

/// Defects an eighth helper review found in append, reference sources, set, lookup and
/// next-page tokens; each is pinned here with the review's repro.
@Suite("Review regressions: places engine")
struct PlacesReviewTests {
    static let three = """
        name: c
        sources:
          a: {kind: json, path: a.json, fields: {id: string}}
          b: {kind: json, path: b.json, fields: {id: string}}
          c: {kind: json, path: c.json, fields: {id: string}}
        steps:
          - {aggregate: append, collection: a, into: b}
          - {aggregate: append, collection: c, into: a}
        outputs:
          - {file: b.json, collection: b}
        """

    @Test func appendingIntoACollectionAlreadyAppendedElsewhereIsAnError() {
        let errors = Harness.definitionErrors(Self.three, files: ["a.json": "[]", "b.json": "[]", "c.json": "[]"]).map(\.message)
        #expect(errors.contains { $0.contains("the records of 'a' were appended to 'b' by an earlier step, so records appended to 'a' now would never be written; append into 'b'") }, "\(errors)")
    }

    @Test func nonFiniteConstantsAreDefinitionErrorsNotCrashes() {
        func messages(_ step: String) -> [String] {
            Harness.definitionErrors("""
                name: s
                sources:
                  items: {kind: json, path: data.json, fields: {id: integer, v: any}}
                steps:
                  - \(step)
                outputs:
                  - {file: i.json, collection: items}
                """).map(\.message)
        }
        #expect(messages("{normalize: set, collection: items, fields: {f: .inf}}").contains { $0.contains("'.inf' is not a finite number") })
        #expect(messages("{normalize: set, collection: items, fields: {f: {type: any, value: .nan}}}").contains { $0.contains("'.nan' is not a finite number") })
        #expect(messages("{normalize: set, collection: items, fields: {f: 1e400}}").contains { $0.contains("not a finite number") })
    }

    @Test func aComputedFieldNamedLikeADroppedSourceFieldPointsAtTheRecord() throws {
        let result = try Harness.run("""
            name: d
            sources:
              places: {kind: json, path: app.json, fields: {id: string}}
              nearby: {kind: json, path: api.json, records: /results, fields: {id: {type: string, from: /place_id}, city: {type: string, from: /vicinity}}}
            steps:
              - {aggregate: append, collection: nearby, into: places, drop: [city]}
              - {normalize: set, collection: places, fields: {city: {type: string, value: null}}}
              - {validate: required, collection: places, field: city}
            outputs:
              - {file: p.json, collection: places}
            thresholds: {max-reject-fraction: 1}
            """, files: ["app.json": "[]", "api.json": #"{"results": [{"place_id": "g1", "vicinity": ""}]}"#])
        let finding = try #require(result.rejects("places").first?.findings.first)
        #expect(finding.message == "city is required but missing", "\(finding.message)")
        #expect(finding.location?.pointer == "/results/0" && finding.value == .null, "\(String(describing: finding.location))")
    }

    @Test func referenceDataWithAnOutputIsCountedAsEmitted() throws {
        let dir = try TempDir()
        try dir.write("a.json", #"[{"id":"x"},{"id":"y"}]"#)
        try dir.write("p.yml", """
            name: r
            sources:
              a: {kind: json, path: a.json, reference: true, fields: {id: string}}
              b: {kind: json, path: a.json, reference: true, fields: {id: string}}
            outputs:
              - {file: a.json, collection: a}
            """)
        let run = try CLI.run(["run", "p.yml", "--out", "o"], cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("r: wrote 2 a to"), "\(run.stdout)")
        let accounting = try #require((jsonObject(dir.bytes("o/r/manifest.json")) as? [String: Any])?["accounting"] as? [String: [String: Any]])
        #expect(accounting["a"]?["emitted"] as? Int == 2 && accounting["a"]?["reference"] == nil)
        #expect(accounting["b"]?["reference"] as? Int == 2 && accounting["b"]?["emitted"] as? Int == 0)
    }

    @Test func aKeyRepeatedInStatisticsIsReportedWithoutAFalseLocation() throws {
        let result = try Harness.run("""
            name: g
            sources:
              places: {kind: json, path: places.json, fields: {tripId: string, category: string}}
              trips: {kind: json, path: trips.json, fields: {id: string}}
            steps:
              - {aggregate: group-stats, collection: places, by: [tripId, category], into: tripStats, metrics: {places: count}}
              - {enrich: lookup, collection: trips, key: id, from: tripStats, from-key: tripId, unmatched: null, take: {places: places}}
            outputs:
              - {file: t.json, collection: trips}
              - {file: p.json, collection: places}
              - {file: s.json, collection: tripStats}
            """, files: ["places.json": #"[{"tripId":"a","category":"x"},{"tripId":"a","category":"y"}]"#, "trips.json": #"[{"id":"a"}]"#])
        let warning = try #require(result.state.warnings.first)
        #expect(warning.finding.location == nil && warning.id == nil)
        #expect(warning.finding.message == #"tripId "a" appears in more than one record of the statistics tripStats (its groups have more fields than the key); lookups use the first"#)
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
        let result = try Runner.run(try Loader.load(path: path), options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
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

    @Test func fromOutsideEnrichStepsNamesFieldsNotCollections() {
        let errors = Harness.definitionErrors("""
            name: k
            sources:
              places: {kind: json, path: data.json, fields: {id: string, kind: string}}
              kind: {kind: json, path: data.json, fields: {id: string}}
            steps:
              - {aggregate: append, collection: kind, into: places}
              - {normalize: search-key, collection: places, from: kind, field: kindKey}
            outputs:
              - {file: p.json, collection: places}
            """)
        #expect(errors.isEmpty, "\(errors)")
    }

    // A ninth review, of the fixes above.

    @Test func acrossNeverMergesTwoRecordsOfOneSideWhateverTheKeepOrder() throws {
        for keep in ["keep: first", "keep: last", "keep: highest, keep-by: rating"] {
            let result = try RuleHarness.run(
                fields: "id: string\nplaceId: string\nsource: string\nrating: number",
                steps: "- {aggregate: dedupe, collection: items, by: placeId, across: source, \(keep)}",
                records: #"[{"id":"app-1","placeId":"X","source":"app","rating":3},{"id":"app-2","placeId":"X","source":"app","rating":4},{"id":"api-1","placeId":"X","source":"api","rating":5}]"#)
            // One app record pairs with the API record; the other app record is never
            // merged with it (before the fix, with last or highest both went to the API's).
            let kept = result.records("items").map { $0["id"]!.string! }
            #expect(kept.count == 2 && kept.contains { $0.hasPrefix("app") }, "\(keep): \(kept)")
            #expect(result.state.duplicates.count == 1, "\(keep)")
        }
    }

    @Test func aFieldTheTargetComputesButTheAppendedSourceReadsPointsAtTheSourceValue() throws {
        let result = try Harness.run("""
            name: l
            sources:
              places: {kind: json, path: app.json, fields: {id: string}}
              nearby: {kind: json, path: api.json, records: /results, fields: {id: {type: string, from: /place_id}, publicRating: {type: number, from: /rating}}}
            steps:
              - {normalize: set, collection: places, fields: {publicRating: {type: number, value: null}}}
              - {aggregate: append, collection: nearby, into: places}
              - {validate: range, collection: places, field: publicRating, max: 4.5}
            outputs:
              - {file: p.json, collection: places}
            thresholds: {max-reject-fraction: 1}
            """, files: ["app.json": "[]", "api.json": "{\"results\": [\n  {\"place_id\": \"g1\",\n   \"rating\": 4.8}]}"])
        let location = try #require(result.rejects("places").first?.findings.first?.location)
        #expect(location.pointer == "/results/0/rating" && location.line == 3 && location.column == 14, "\(location)")
    }

    static func expecting(_ expect: String, _ page: String) throws -> (SourceError?, RunResult) {
        let yaml = """
            name: e
            sources:
              api: {kind: json, path: page.json, records: /results, expect: \(expect), fields: {id: string}}
            outputs:
              - {file: a.json, collection: api}
            """
        return (Harness.sourceError(yaml, files: ["page.json": Array(page.utf8)]), try Harness.run(yaml, files: ["page.json": page]))
    }

    @Test func expectTreatsAMissingValueAsNullAndComesBeforeTheRecordsPointer() throws {
        let (absent, _) = try Self.expecting("{/status: OK, /error_message: null}", #"{"results": [{"id": "a"}], "status": "OK"}"#)
        #expect(absent == nil)
        let (failed, validated) = try Self.expecting("{/status: OK}", #"{"error_message": "quota", "status": "OVER_QUERY_LIMIT"}"#)
        #expect(failed?.message.hasPrefix(#"expected "OK" at /status (the source's 'expect'), found "OVER_QUERY_LIMIT""#) == true, "\(String(describing: failed))")
        #expect(validated.state.sourceErrors.count == 1)
        // Only true and false are booleans: NO is Norway.
        let (norway, _) = try Self.expecting("{/region: [NO, SE]}", #"{"results": [], "region": "NO"}"#)
        #expect(norway == nil, "\(String(describing: norway))")
        #expect(Harness.definitionErrors("""
            name: e
            sources:
              api: {kind: json, path: data.json, expect: {/status: OK}, fields: {id: string}}
            outputs:
              - {file: a.json, collection: api}
            """).first?.message.contains("'expect' needs 'records'") == true)
    }

    @Test func decimalFiltersCompareExactly() throws {
        // What a `where` on a decimal field, or a test expectation, compares: exact digits.
        #expect(!Value.decimal("12345678901234567.01").describes(.decimal("12345678901234567.02")))
        #expect(Value.decimal("12345678901234567.01").describes(.decimal("12345678901234567.01")))
        #expect(Value.decimal("5").describes(.int(5)) && Value.int(5).describes(.decimal("5")))
        #expect(!Value.decimal("9007199254740993").describes(.int(9007199254740992)))
        #expect(Value.decimal("2.5").describes(.double(2.5)))
    }

    @Test func yamlExtensionPipelinesFindTheirTestFiles() throws {
        let dir = try TempDir()
        try dir.write("d.json", "[]")
        try dir.write("p.yaml", "name: p\nsources:\n  items: {kind: json, path: d.json, fields: {id: integer}}\noutputs:\n  - {file: i.json, collection: items}\n")
        try dir.write("p.test.yaml", "cases:\n  - name: one record\n    input:\n      items: [{id: 1}]\n    expect:\n      items: 1\n")
        for argument in ["p.test.yaml", "p.yaml"] {
            let run = try CLI.run(["test", argument], cwd: dir.path)
            #expect(run.status == 0 && run.stdout.contains("1 passed, 0 failed"), "\(argument): \(run.stdout) \(run.stderr)")
        }
    }
}
