import Foundation
import Testing

@testable import SeedForge

/// `validate: only-when`: fields that may be given only when a boolean field is true
/// (a rating on a place not yet visited), as the adventure log needs.
@Suite("Validate: only-when")
struct OnlyWhenRuleTests {
    @Test func aRatingOfAPlaceNotVisitedIsAFinding() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nisVisited: boolean\nrating: number\nvisitedDate: string",
            steps: "- validate: only-when\n  collection: items\n  field: [rating, visitedDate]\n  when: isVisited",
            records: """
                [{"id":1,"isVisited":true,"rating":4,"visitedDate":"2025-06-01"},
                 {"id":2,"isVisited":false,"rating":5},
                 {"id":3,"isVisited":false},
                 {"id":4,"rating":2},
                 {"id":5,"isVisited":false,"rating":null,"visitedDate":"2025-01-01"}]
                """)
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(3)])
        #expect(
            result.rejects("items").map { $0.findings.map(\.message) } == [
                ["rating 5 is given, but isVisited is false: rating only applies when isVisited is true"],
                ["rating 2 is given, but isVisited is not given: rating only applies when isVisited is true"],
                [
                    #"visitedDate "2025-01-01" is given, but isVisited is false: visitedDate only applies when isVisited is true"#
                ],
            ])
    }

    @Test func aWhenValueThatIsNotABooleanIsAFinding() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nvisited: any\nrating: number",
            steps: "- validate: only-when\n  collection: items\n  field: rating\n  when: visited",
            records:
                #"[{"id":1,"visited":"true","rating":4},{"id":2,"visited":"true"},{"id":3,"visited":1,"rating":2}]"#)
        #expect(RuleHarness.keptIDs(result) == [.int(2)])
        #expect(
            result.rejects("items").map(\.findings[0].message) == [
                #"visited "true" is not true or false, so whether rating may be given cannot be checked"#,
                "visited 1 is not true or false, so whether rating may be given cannot be checked",
            ])
        #expect(result.rejects("items").first?.findings.first?.field == "visited")
    }

    @Test func mistakesAreDefinitionErrors() {
        #expect(
            RuleHarness.definitionMessages("{validate: only-when, collection: items, field: a, when: flag}").contains {
                $0.contains("'when' needs a boolean field; 'flag' is string")
            })
        #expect(
            RuleHarness.definitionMessages("{validate: only-when, collection: items, field: a, when: a}").contains {
                $0.contains("'when' needs a boolean field")
            })
    }
}
