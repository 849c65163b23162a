import Testing

@testable import SeedForge

/// `aggregate: sort`: collation, ties, timestamps and numbers.
@Suite("Aggregate: sort")
struct SortTests {
    @Test func sortUsesTheCollationThenTies() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- aggregate: sort\n  collection: items\n  by: [name, id]",
            records:
                #"[{"id":4,"name":"zeta"},{"id":3,"name":"Éclair"},{"id":2,"name":"apple"},{"id":1,"name":"Eclair"},{"id":6},{"id":5,"name":"Ápple"}]"#
        )
        // Equal keys ("apple", "eclair") are ordered by their NFC text in byte order.
        #expect(RuleHarness.keptIDs(result) == [.int(2), .int(5), .int(1), .int(3), .int(4), .int(6)])
    }

    @Test func sortsTimestampsByInstantNewestFirst() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nat: string",
            steps:
                "- aggregate: sort\n  collection: items\n  by:\n    - {field: at, order: desc, as: timestamp}\n    - id",
            records:
                #"[{"id":1,"at":"2025-10-02T14:30:00+08:00"},{"id":2,"at":"2025-10-02T08:00:00Z"},{"id":3,"at":"2025-10-02T06:31:00Z"},{"id":4}]"#
        )
        #expect(RuleHarness.keptIDs(result) == [.int(2), .int(3), .int(1), .int(4)])
    }

    @Test func numbersSortNumerically() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nn: number",
            steps: "- aggregate: sort\n  collection: items\n  by: [{field: n, order: desc}]",
            records: #"[{"id":1,"n":10},{"id":2,"n":9.5},{"id":3,"n":100},{"id":4,"n":-1}]"#)
        #expect(RuleHarness.keptIDs(result) == [.int(3), .int(1), .int(2), .int(4)])
    }
}
