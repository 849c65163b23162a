import Foundation
import Testing

@testable import SeedForge

/// `seedforge test`: cases through the real pipeline, diffs on mismatch, exit codes.
@Suite("Pipeline tests: seedforge test")
struct PipelineTestCommandTests {
    static let pipeline = """
        name: shops
        sources:
          shops: {kind: json, path: shops.json, id: id, fields: {id: string, rating: number}}
        steps:
          - {validate: range, collection: shops, field: rating, max: 5}
          - {aggregate: sort, collection: shops, by: [id]}
        outputs:
          - {file: shops.json, collection: shops}
        """

    func workspace(_ tests: String, pipeline: String = Self.pipeline) throws -> TempDir {
        let dir = try TempDir()
        try dir.write("shops.yml", pipeline)
        try dir.write("shops.json", "[]")
        try dir.write("shops.test.yml", tests)
        return dir
    }

    @Test func passingCasesExit0AndCountThem() throws {
        let dir = try workspace(
            """
            cases:
              - name: sorted and checked
                input:
                  shops: [{id: b, rating: 4}, {id: a, rating: 7}, {id: c, rating: 1}]
                expect:
                  shops: [{id: b}, {id: c}]
                  rejects: [{id: a, rule: range, message: "above the maximum 5"}]
              - name: from a fixture file
                input:
                  shops: {fixture: sample.json}
                expect:
                  shops: 1
            """)
        try dir.write("sample.json", #"[{"id": "z", "rating": 3}]"#)
        let result = try CLI.run(["test", "shops.yml"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("2 passed, 0 failed\n"))
        #expect(result.stdout.contains("PASS shops.test.yml:2: sorted and checked"))
    }

    @Test func aFailingCasePrintsEveryDifferenceAndExits1() throws {
        let dir = try workspace(
            """
            cases:
              - name: wrong expectations
                input:
                  shops: [{id: b, rating: 4}, {id: a, rating: 2}]
                expect:
                  shops: [{id: b, rating: 4.0}, {id: a}]
                  rejects: [{rule: range}]
            """)
        let result = try CLI.run(["test", "shops.test.yml"], cwd: dir.path)
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                FAIL shops.test.yml:2: wrong expectations
                  - shops[0].id: expected "b", got "a"
                  - shops[0].rating: expected 4.0, got 2
                  - shops[1].id: expected "a", got "b"
                  - rejects: expected 1, got 0
                0 passed, 1 failed

                """)
    }

    /// Past the memory limit a run renders its duplicates to disk once they outgrow a
    /// budget (at least 1 MiB of them held); a pipeline test still compares every one.
    @Test func everyDuplicateIsComparedPastTheMemoryLimit() throws {
        // 4,000 shops listed twice: about 2 MB of duplicates held, twice the budget.
        let shops = 4000
        var records: [String] = []
        var duplicates: [String] = []
        for number in 0..<shops {
            let id = String(format: "s%05d", number)
            records.append(#"{"id": "\#(id)", "name": "Shop number \#(number) on the high street"}"#)
            records.append(#"{"id": "x\#(id)", "name": "Shop number \#(number) on the high street"}"#)
            duplicates.append("{collection: shops, id: x\(id), winner: \(id)}")
        }
        let dir = try workspace(
            """
            cases:
              - name: every duplicate past the limit
                input:
                  shops: {fixture: listed-twice.json}
                expect:
                  shops: \(shops)
                  duplicates: [\(duplicates.joined(separator: ", "))]
            """,
            pipeline: """
                name: shops
                sources:
                  shops: {kind: json, path: shops.json, id: id, fields: {id: string, name: string}}
                steps:
                  - {aggregate: dedupe, collection: shops, by: name, keep: lowest, keep-by: id}
                outputs:
                  - {file: shops.json, collection: shops}
                limits:
                  max-memory: 4KiB
                """)
        try dir.write("listed-twice.json", "[" + records.joined(separator: ",\n") + "]")
        let result = try CLI.run(["test", "shops.yml"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stdout.prefix(2000))\(result.stderr)")
        #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"))
    }

    @Test func mistakesInTestFilesAreDefinitionErrors() throws {
        let dir = try workspace(
            """
            cases:
              - name: typo
                input:
                  shop: [{id: a}]
                expectt: {}
            """)
        let result = try CLI.run(["test", "shops.yml"], cwd: dir.path)
        #expect(result.status == 2)
        #expect(
            result.stderr.contains(
                "shops.test.yml:4:7: error: case 'typo': unknown collection 'shop'; did you mean 'shops'?"),
            "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "shops.test.yml:5:5: error: unknown key 'expectt' in case 1; did you mean 'expect'?"),
            "\(result.stderr)")
        try FileManager.default.removeItem(atPath: dir.path + "/shops.test.yml")
        let missing = try CLI.run(["test", "shops.yml"], cwd: dir.path)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no test file"))
    }

    @Test func inputForAComputedCollectionIsADefinitionError() throws {
        let dir = try TempDir()
        try dir.write("shops.json", "[]")
        try dir.write(
            "stats.yml",
            """
            name: stats
            sources:
              shops: {kind: json, path: shops.json, id: id, fields: {id: string, city: string}}
            steps:
              - {aggregate: group-stats, collection: shops, by: city, into: cities, metrics: {shops: count}}
            outputs:
              - {file: shops.json, collection: shops}
              - {file: cities.json, collection: cities}
            """)
        try dir.write(
            "stats.test.yml",
            """
            cases:
              - name: fed the statistics
                input:
                  cities: [{city: Paris, shops: 3}]
                expect: {cities: 1}
            """)
        let result = try CLI.run(["test", "stats.yml"], cwd: dir.path)
        #expect(result.status == 2)
        #expect(
            result.stderr.contains(
                "stats.test.yml:4:7: error: case 'fed the statistics': 'cities' is computed by group-stats"),
            "\(result.stderr)")
    }

    @Test func unreadableInputsFailTheCase() throws {
        let dir = try workspace(
            """
            cases:
              - name: broken fixture
                input:
                  shops: {fixture: broken.json}
                expect:
                  shops: 0
                  rejects: []
            """)
        try dir.write("broken.json", "not json")
        let result = try CLI.run(["test", "shops.yml"], cwd: dir.path)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "  - the input could not be read: broken.json:1:1: expected a JSON array of records, found something else"
            ), "\(result.stdout)")
    }

    @Test func everyFindingWarningsNestedValuesAndMissingFields() throws {
        let dir = try TempDir()
        try dir.write(
            "shops.yml",
            """
            name: shops
            sources:
              shops: {kind: json, path: shops.json, id: id, fields: {id: string, name: string, rating: number, loc: object}}
            steps:
              - {validate: required, collection: shops, field: name}
              - {validate: range, collection: shops, field: rating, max: 5}
              - {validate: length, collection: shops, field: name, max: 3, severity: warning}
            outputs:
              - {file: shops.json, collection: shops}
            """)
        try dir.write("shops.json", "[]")
        try dir.write(
            "shops.test.yml",
            """
            cases:
              - name: all findings, warnings and nested subsets
                input:
                  shops:
                    - {id: a, rating: 9}
                    - {id: b, name: Long name, rating: 1, loc: {lat: 1, lon: 2, alt: 3}}
                expect:
                  shops: [{id: b, loc: {lon: 2, lat: 1}}]
                  rejects:
                    - {id: a, rule: required}
                    - {id: a, rule: range, field: rating}
                  warnings:
                    - {id: b, rule: length, severity: warning}
              - name: a misspelt field is reported
                input:
                  shops: [{id: c, name: Abc, rating: 1}]
                expect:
                  shops: [{id: c, raiting: null}]
            """)
        let result = try CLI.run(["test", "shops.yml"], cwd: dir.path)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains("PASS shops.test.yml:2: all findings, warnings and nested subsets"),
            "\(result.stdout)")
        #expect(
            result.stdout.contains("  - shops[0]: there is no field 'raiting'; did you mean 'rating'?"),
            "\(result.stdout)")
    }

    @Test func casesThatCheckNothingAreRefused() throws {
        let dir = try workspace(
            """
            cases:
              - name: nothing to check
                input:
                  shops: [{id: a, rating: 1}]
              - name: negative
                expect:
                  shops: -1
            """)
        let result = try CLI.run(["test", "shops.yml"], cwd: dir.path)
        #expect(result.status == 2)
        #expect(result.stderr.contains("case 'nothing to check' has no 'expect'"))
        #expect(result.stderr.contains("a record count cannot be negative"))
    }

    @Test func everyShippedPipelineHasPassingTests() throws {
        let folder = CLI.repoRoot.appendingPathComponent("pipelines")
        let pipelines = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".yml") && !$0.hasSuffix(".test.yml") }.sorted()
        #expect(!pipelines.isEmpty)
        for name in pipelines {
            #expect(
                FileManager.default.fileExists(
                    atPath: folder.appendingPathComponent(name.replacingOccurrences(of: ".yml", with: ".test.yml")).path
                ), "\(name) has no test file")
        }
        let result = try CLI.run(["test"] + pipelines.map { "pipelines/\($0)" })
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains(" passed, 0 failed"))
    }

    @Test func yamlExtensionPipelinesFindTheirTestFiles() throws {
        let dir = try TempDir()
        try dir.write("d.json", "[]")
        try dir.write(
            "p.yaml",
            "name: p\nsources:\n  items: {kind: json, path: d.json, fields: {id: integer}}\noutputs:\n  - {file: i.json, collection: items}\n"
        )
        try dir.write(
            "p.test.yaml",
            "cases:\n  - name: one record\n    input:\n      items: [{id: 1}]\n    expect:\n      items: 1\n")
        for argument in ["p.test.yaml", "p.yaml"] {
            let run = try CLI.run(["test", argument], cwd: dir.path)
            #expect(
                run.status == 0 && run.stdout.contains("1 passed, 0 failed"), "\(argument): \(run.stdout) \(run.stderr)"
            )
        }
    }
}
