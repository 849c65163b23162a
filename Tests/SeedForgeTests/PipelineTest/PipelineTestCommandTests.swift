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

    func workspace(_ tests: String) throws -> TempDir {
        let dir = try TempDir()
        try dir.write("shops.yml", Self.pipeline)
        try dir.write("shops.json", "[]")
        try dir.write("shops.test.yml", tests)
        return dir
    }

    @Test func passingCasesExit0AndCountThem() throws {
        let dir = try workspace("""
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
        let dir = try workspace("""
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
        #expect(result.stdout == """
            FAIL shops.test.yml:2: wrong expectations
              - shops[0].id: expected "b", got "a"
              - shops[0].rating: expected 4.0, got 2
              - shops[1].id: expected "a", got "b"
              - rejects: expected 1, got 0
            0 passed, 1 failed

            """)
    }

    @Test func mistakesInTestFilesAreDefinitionErrors() throws {
        let dir = try workspace("""
            cases:
              - name: typo
                input:
                  shop: [{id: a}]
                expectt: {}
            """)
        let result = try CLI.run(["test", "shops.yml"], cwd: dir.path)
        #expect(result.status == 2)
        #expect(result.stderr.contains("shops.test.yml:4:7: error: case 'typo': unknown collection 'shop'; did you mean 'shops'?"), "\(result.stderr)")
        #expect(result.stderr.contains("shops.test.yml:5:5: error: unknown key 'expectt' in case 1; did you mean 'expect'?"), "\(result.stderr)")
        try FileManager.default.removeItem(atPath: dir.path + "/shops.test.yml")
        let missing = try CLI.run(["test", "shops.yml"], cwd: dir.path)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no test file"))
    }

    @Test func everyShippedPipelineHasPassingTests() throws {
        let folder = CLI.repoRoot.appendingPathComponent("pipelines")
        let pipelines = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".yml") && !$0.hasSuffix(".test.yml") }.sorted()
        #expect(!pipelines.isEmpty)
        for name in pipelines {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name.replacingOccurrences(of: ".yml", with: ".test.yml")).path), "\(name) has no test file")
        }
        let result = try CLI.run(["test"] + pipelines.map { "pipelines/\($0)" })
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains(" passed, 0 failed"))
    }
}
