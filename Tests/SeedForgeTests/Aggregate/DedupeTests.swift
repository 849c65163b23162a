import Testing

@testable import SeedForge

/// `aggregate: dedupe`: the declared winner, every loser logged.
@Suite("Aggregate: dedupe")
struct DedupeTests {
    @Test func dedupeKeepsTheDeclaredWinnerAndLogsEveryLoser() throws {
        let records =
            #"[{"id":5,"name":"Kyiv"},{"id":3,"name":"KYIV"},{"id":9,"name":"Kyïv"},{"id":4,"name":"Lviv"},{"id":7}]"#
        let lowest = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- aggregate: dedupe\n  collection: items\n  by: name\n  fold: true\n  keep: lowest\n  keep-by: id",
            records: records)
        #expect(RuleHarness.keptIDs(lowest) == [.int(3), .int(4), .int(7)])
        #expect(lowest.state.duplicates.map(\.id) == [.int(5), .int(9)])
        #expect(lowest.state.duplicates.map(\.winnerID) == [.int(3), .int(3)])
        let first = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- aggregate: dedupe\n  collection: items\n  by: name",
            records: records)
        #expect(first.state.duplicates.isEmpty, "exact keys differ without fold")
        let last = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- aggregate: dedupe\n  collection: items\n  by: name\n  fold: true\n  keep: last",
            records: records)
        #expect(RuleHarness.keptIDs(last) == [.int(9), .int(4), .int(7)])
    }

    @Test func aRecordWithoutAKeepByValueNeverWins() throws {
        let records =
            #"[{"id":1,"name":"A","score":null},{"id":2,"name":"A","score":4},{"id":3,"name":"A","score":9},{"id":4,"name":"B"},{"id":5,"name":"B"}]"#
        for keep in ["highest", "lowest"] {
            let result = try RuleHarness.run(
                fields: "id: integer\nname: string\nscore: number",
                steps: "- aggregate: dedupe\n  collection: items\n  by: name\n  keep: \(keep)\n  keep-by: score",
                records: records)
            // Among A, a null score loses either way; among B (no scores) the first stays.
            #expect(RuleHarness.keptIDs(result) == [keep == "highest" ? .int(3) : .int(2), .int(4)], "\(keep)")
        }
    }

    /// Past the limit the duplicates and their winners are found from two ascending lists
    /// (losers; winners, which repeat when a winner beat several): each position once, in order.
    @Test func theInvolvedPositionsAreTheUnionOfLosersAndWinnersInOrder() {
        #expect(Dedupe.merged([2, 5, 9], [1, 5, 5, 7, 12]) == [1, 2, 5, 7, 9, 12])
        #expect(Dedupe.merged([], [3, 3]) == [3])
        #expect(Dedupe.merged([4], []) == [4])
        let losers: [(loser: Int, winner: Int)] = [(2, 1), (5, 7), (9, 7)]
        #expect([1, 2, 5, 7, 9, 10].filter { Dedupe.contains(losers, $0) } == [2, 5, 9])
    }
}
