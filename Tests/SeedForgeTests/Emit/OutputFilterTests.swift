import Foundation
import Testing

@testable import SeedForge

/// Definitions over one source of items, for checks that a definition does not load.
enum ItemsPipeline {
    /// A pipeline of items {id, name, city, rating, open, code} with the given steps and outputs.
    static func errors(steps: String = "", outputs: String = "  - {file: all.json, collection: items}") -> [String] {
        Harness.definitionErrors(
            """
            name: r
            sources:
              items: {kind: json, path: data.json, fields: {id: integer, name: string, city: string, rating: number, open: boolean, code: string}}
            steps:
            \(steps.isEmpty ? "  []" : steps)
            outputs:
            \(outputs)
            """
        ).map(\.message)
    }

    static let stats = """
          - {aggregate: group-stats, collection: items, by: city, into: cities, metrics: {n: count}}
        """
}

@Suite("Emit output filters (where)")
struct OutputFilterTests {
    @Test func aFilterKeepsTheMatchingRecords() throws {
        let dir = try TempDir()
        try dir.write(
            "p.yml",
            """
            name: f
            sources:
              items: {kind: json, path: d.json, fields: {name: string, category: string}}
            outputs:
              - {file: all.json, collection: items}
              - {file: food.json, collection: items, where: {category: Food}}
              - {file: two.json, collection: items, where: {category: [Food, Museum]}}
            """)
        try dir.write(
            "d.json",
            #"[{"name":"A","category":"Food"},{"name":"B","category":"Museum"},{"name":"C","category":"Sports"}]"#)
        #expect(try CLI.run(["run", "p.yml", "--out", "o"], cwd: dir.path).status == 0)
        func names(_ file: String) throws -> [String] {
            try #require(jsonObject(dir.bytes("o/f/\(file)")) as? [[String: Any]]).map { $0["name"] as! String }
        }
        #expect(try names("food.json") == ["A"])  // kept, not removed
        #expect(try names("two.json") == ["A", "B"])
        #expect(try names("all.json") == ["A", "B", "C"])
    }

    @Test func aFilteredOutputDoesNotCountAsWritingTheCollection() {
        let messages = ItemsPipeline.errors(outputs: "  - {file: paris.json, collection: items, where: {city: Paris}}")
        #expect(
            messages.contains { $0.contains("collection 'items' is never written") && $0.contains("without 'where'") },
            "\(messages)")
    }

    @Test func pagesAndIndexOutputsRefuseAFilter() {
        let messages = ItemsPipeline.errors(
            outputs: """
                  - {file: all.json, collection: items}
                  - {file: pages, collection: items, format: pages, where: {city: Paris}}
                """)
        #expect(messages.contains { $0.contains("'where' cannot filter a pages output") }, "\(messages)")
    }

    @Test func filterValuesAreReadAsTheFieldsType() {
        #expect(
            ItemsPipeline.errors(
                outputs: """
                      - {file: all.json, collection: items}
                      - {file: some.json, collection: items, where: {id: seven}}
                    """
            ).contains { $0.contains("'where' on 'id': 'seven' is not a value of its type, integer") })
        #expect(
            ItemsPipeline.errors(
                outputs: """
                      - {file: all.json, collection: items}
                      - {file: some.json, collection: items, where: {city: []}}
                    """
            ).contains { $0.contains("lists no value") })
        #expect(
            ItemsPipeline.errors(
                outputs: """
                      - {file: all.json, collection: items}
                      - {file: some.json, collection: items, where: {open: maybe}}
                    """
            ).contains { $0.contains("'maybe' is not a value of its type, boolean") })
    }

    @Test func aTextFieldFilterMatchesTheWrittenTextAndIntegersCompareExactly() throws {
        let dir = try TempDir()
        try dir.write(
            "p.yml",
            """
            name: f
            sources:
              items: {kind: json, path: d.json, fields: {id: integer, code: string, open: boolean}}
            outputs:
              - {file: all.json, collection: items}
              - {file: code.json, collection: items, where: {code: 007}}
              - {file: big.json, collection: items, where: {id: 9007199254740993}}
              - {file: yes.json, collection: items, where: {code: yes}}
              - {file: open.json, collection: items, where: {open: yes}}
            """)
        try dir.write(
            "d.json",
            #"[{"id":9007199254740992,"code":"007","open":true},{"id":9007199254740993,"code":"7","open":false},{"id":1,"code":"yes","open":false}]"#
        )
        #expect(try CLI.run(["run", "p.yml", "--out", "o"], cwd: dir.path).status == 0)
        func ids(_ file: String) throws -> [Int64] {
            try #require(jsonObject(dir.bytes("o/f/\(file)")) as? [[String: Any]]).map {
                ($0["id"] as! NSNumber).int64Value
            }
        }
        #expect(try ids("code.json") == [9_007_199_254_740_992])  // "007" as text, not the number 7
        #expect(try ids("big.json") == [9_007_199_254_740_993])  // not its neighbour, equal as doubles
        #expect(try ids("yes.json") == [1])  // "yes" as text on a text field
        #expect(try ids("open.json") == [9_007_199_254_740_992])  // yes as true on a boolean field
    }

    @Test func decimalFiltersCompareExactly() throws {
        // What a `where` on a decimal field, or a test expectation, compares: exact digits.
        #expect(!Value.decimal("12345678901234567.01").describes(.decimal("12345678901234567.02")))
        #expect(Value.decimal("12345678901234567.01").describes(.decimal("12345678901234567.01")))
        #expect(Value.decimal("5").describes(.int(5)) && Value.int(5).describes(.decimal("5")))
        #expect(!Value.decimal("9007199254740993").describes(.int(9_007_199_254_740_992)))
        #expect(Value.decimal("2.5").describes(.double(2.5)))
    }
}
