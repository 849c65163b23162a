import Foundation
import Testing

@testable import SeedForge

/// Defects found in review, each pinned so it cannot come back.
@Suite("Regressions from review")
struct ReviewRegressionTests {
    static let base = """
        name: r
        sources:
          items:
            kind: json
            path: data.json
            id: id
            fields: {id: integer, name: string, rating: number}
          reviews:
            kind: json
            path: reviews.json
            fields: {id: integer, itemID: integer, rating: number}
        steps:
        STEPS
        outputs:
          - {file: items.json, collection: items}
          - {file: reviews.json, collection: reviews}
        thresholds:
          max-reject-fraction: 1
        """

    static func errors(_ steps: String, outputs: String? = nil) -> [DefinitionError] {
        var yaml = base.replacingOccurrences(of: "STEPS", with: steps)
        if let outputs { yaml = yaml.replacingOccurrences(of: "  - {file: items.json, collection: items}", with: outputs) }
        return Harness.definitionErrors(yaml, files: ["data.json": "[]", "reviews.json": "[]"])
    }

    @Test(arguments: [
        "  - {validate: unique, collection: items, field: []}",
        "  - {validate: required, collection: items, field: []}",
        "  - {aggregate: dedupe, collection: items, by: []}",
        "  - {aggregate: sort, collection: items, by: []}",
        "  - {normalize: stable-id, collection: items, field: name, from: []}",
    ])
    func emptyFieldListsAreDefinitionErrors(step: String) {
        let errors = Self.errors(step)
        #expect(errors.count == 1)
        #expect(errors.first?.message.contains("at least one") == true, "\(errors)")
    }

    @Test func aFieldListedTwiceIsAnError() {
        let errors = Self.errors("  []", outputs: "  - {file: items.json, collection: items, fields: [id, name, id]}")
        #expect(errors.first?.message.contains("field 'id' is listed twice in 'fields'") == true, "\(errors)")
    }

    @Test func enrichersNeverOverwriteExistingFields() {
        let errors = Self.errors("""
              - enrich: rating-summary
                collection: items
                key: id
                from: reviews
                foreign-key: itemID
                rating: rating
                count-field: name
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.message.contains("already has a field 'name'") == true, "\(errors)")
        #expect(errors.first?.line == 19)
    }

    @Test func outputFilesCannotBeAFolderOfEachOther() {
        let errors = Self.errors("  []", outputs: "  - {file: sub, collection: items, format: json}\n  - {file: sub/x.json, collection: items}")
        #expect(errors.first?.message.contains("one would be a folder holding the other") == true, "\(errors)")
    }

    @Test func impossibleLimitsAreDefinitionErrors() {
        #expect(Self.errors("  - {validate: length, collection: items, field: name, min: 10, max: 2}").first?.message.contains("greater than 'max'") == true)
        #expect(Self.errors("  - {validate: range, collection: items, field: rating, max: 5, max-rejects: -1}").first?.message.contains("must not be negative") == true)
    }

    @Test func hugeRatingsGiveAFiniteMeanInsteadOfACrash() throws {
        let yaml = Self.base.replacingOccurrences(of: "STEPS", with: """
              - {enrich: rating-summary, collection: items, key: id, from: reviews, foreign-key: itemID, rating: rating, decimals: 2}
            """)
        let result = try Harness.run(yaml, files: [
            "data.json": #"[{"id": 1}]"#,
            "reviews.json": #"[{"id": 1, "itemID": 1, "rating": 1e308}, {"id": 2, "itemID": 1, "rating": 1e308}]"#,
        ])
        #expect(result.records("items")[0]["communityRating"] == .double(1e308))
    }

    @Test func joinsMatchIntegralFloatsWithIntegers() throws {
        let yaml = Self.base
            .replacingOccurrences(of: "fields: {id: integer, itemID: integer, rating: number}", with: "fields: {id: integer, itemID: number, rating: number}")
            .replacingOccurrences(of: "STEPS", with: "  - {enrich: rating-summary, collection: items, key: id, from: reviews, foreign-key: itemID, rating: rating}")
        let result = try Harness.run(yaml, files: [
            "data.json": #"[{"id": 7}]"#, "reviews.json": #"[{"id": 1, "itemID": 7.0, "rating": 4}]"#,
        ])
        #expect(result.records("items")[0]["reviewCount"] == .int(1))
        #expect(result.rejects("reviews").isEmpty)
    }

    @Test func numericLookingKeysResolveInObjects() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nlat: {type: number, from: /coordinates/0}",
            steps: "[]", records: #"[{"id": 1, "coordinates": {"0": 5}}]"#)
        #expect(result.records("items")[0]["lat"] == .int(5))
    }

    @Test func duplicateKeyFindingsPointAtTheNestedKeyAndKeepTheID() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nmeta: object", steps: "[]",
            records: #"[{"id": 2, "meta": {"a/b": {"x": 1, "x": 2}}}]"#)
        let rejection = try #require(result.rejects("items").first)
        #expect(rejection.id == .int(2))
        #expect(rejection.findings[0].rule == "duplicate-key")
        #expect(rejection.findings[0].location?.pointer == "/0/meta/a~1b/x")
        #expect(rejection.findings[0].location?.column == 37)
    }

    @Test func columnsIgnoreAByteOrderMark() {
        let text = SourceText(displayPath: "x", bytes: [0xEF, 0xBB, 0xBF] + Array("[{\"id\":1}]".utf8))
        #expect(text.lineAndColumn(ofOffset: 5) == (1, 3))
    }

    @Test func incrementalColumnsMatchCountingFromTheLineStart() {
        // One long minified line with multi-byte text between the values.
        var line = "["
        for index in 0..<300 { line += "{\"n\":\"Zürich 🐝 e\u{301} \(index)\",\"v\":\(index)}," }
        line += "{}]"
        let bytes = Array(line.utf8)
        let offsets = bytes.indices.filter { bytes[$0] == UInt8(ascii: "v") }
        let cached = SourceText(displayPath: "x", bytes: bytes)
        for offset in offsets {
            let fresh = SourceText(displayPath: "x", bytes: bytes)
            #expect(cached.lineAndColumn(ofOffset: offset) == fresh.lineAndColumn(ofOffset: offset))
        }
        // Going backwards falls back to counting from the line start.
        #expect(cached.lineAndColumn(ofOffset: offsets[3]) == SourceText(displayPath: "x", bytes: bytes).lineAndColumn(ofOffset: offsets[3]))
    }

    @Test func yamlDuplicateKeysNameTheirLine() {
        let errors = Harness.definitionErrors("name: a\nsources: {}\nname: b\n")
        #expect(errors.first?.line == 3, "\(errors)")
        #expect(errors.first?.message.contains("appears twice") == true)
    }

    @Test func globTiesAreOrderedByBytes() {
        #expect(Glob.naturalLess("page-02.json", "page-2.json"))
        #expect(!Glob.naturalLess("page-2.json", "page-02.json"))
    }

    @Test func relativePathsFromThePipelineFolder() {
        #expect(Paths.relative("/repo/Fixtures/a/shops.json", to: "/repo/pipelines") == "../Fixtures/a/shops.json")
        #expect(Paths.relative("/repo/pipelines/data.json", to: "/repo/pipelines/") == "data.json")
    }
}
