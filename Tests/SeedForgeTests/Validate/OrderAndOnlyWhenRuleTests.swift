import Foundation
import Testing

@testable import SeedForge

/// The rules the adventure log needs: trips that end before they start, ratings on
/// places not yet visited.
@Suite("Validate: order and only-when")
struct OrderAndOnlyWhenRuleTests {
    @Test func aTripThatEndsBeforeItStartsIsAFinding() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nstartDate: any\nendDate: any",
            steps: "- validate: order\n  collection: items\n  fields: [startDate, endDate]",
            records: """
                [{"id":1,"startDate":"2025-06-01","endDate":"2025-06-14"},
                 {"id":2,"startDate":"2025-06-14","endDate":"2025-06-01"},
                 {"id":3,"startDate":"2025-06-01","endDate":"2025-06-01"},
                 {"id":4,"startDate":"2025-06-01T10:00:00+02:00","endDate":"2025-06-01T09:30:00Z"},
                 {"id":5,"startDate":"2025-06-01T10:00:00Z","endDate":"2025-06-01T11:30:00+02:00"},
                 {"id":6,"startDate":"2025-06-01","endDate":null},
                 {"id":7,"startDate":"2025-02-30","endDate":"2025-03-01"},
                 {"id":8,"startDate":"2025-06-01","endDate":"2025-06-02T00:00:00Z"},
                 {"id":9,"startDate":3,"endDate":1}]
                """)
        // 4: 08:00Z then 09:30Z is in order though the local hour goes down.
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(3), .int(4), .int(6)])
        #expect(
            result.rejects("items").map(\.findings[0].message) == [
                #"endDate "2025-06-01" is before startDate "2025-06-14""#,
                #"endDate "2025-06-01T11:30:00+02:00" is before startDate "2025-06-01T10:00:00Z""#,
                #"startDate "2025-02-30" is not a number, a date (YYYY-MM-DD) or an RFC 3339 timestamp, so its order cannot be checked"#,
                #"endDate "2025-06-02T00:00:00Z" is a timestamp and startDate "2025-06-01" is a date; they cannot be compared"#,
                "endDate 1 is before startDate 3",
            ])
        #expect(result.rejects("items")[0].findings[0].field == "endDate")
    }

    @Test func aValueIsCheckedAgainstTheLastUsableOneExactly() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\na: any\nb: any\nc: any",
            steps: "- validate: order\n  collection: items\n  fields: [a, b, c]",
            records: """
                [{"id":1,"a":"2025-05-10","b":null,"c":"2025-05-01"},
                 {"id":2,"a":"2025-05-10","b":"soon","c":"2025-05-01"},
                 {"id":3,"a":"2025-01-01T00:00:00.000000300Z","c":"2025-01-01T00:00:00.0000002Z"},
                 {"id":4,"a":9007199254740993,"c":9007199254740992},
                 {"id":5,"a":"2025-01-01T00:00:00.5Z","b":"2025-01-01T00:00:00.50Z","c":"2025-01-01T00:00:01Z"},
                 {"id":6,"a":"2025-05-01","b":"2025-05-02T00:00:00Z","c":"2025-04-30"},
                 {"id":7,"a":1,"c":null}]
                """)
        #expect(RuleHarness.keptIDs(result) == [.int(5), .int(7)])
        #expect(
            result.rejects("items").map { $0.findings.map(\.message) } == [
                [#"c "2025-05-01" is before a "2025-05-10""#],
                [
                    #"b "soon" is not a number, a date (YYYY-MM-DD) or an RFC 3339 timestamp, so its order cannot be checked"#,
                    #"c "2025-05-01" is before a "2025-05-10""#,
                ],
                [#"c "2025-01-01T00:00:00.0000002Z" is before a "2025-01-01T00:00:00.000000300Z""#],
                ["c 9007199254740992 is before a 9007199254740993"],
                [
                    #"b "2025-05-02T00:00:00Z" is a timestamp and a "2025-05-01" is a date; they cannot be compared"#,
                    #"c "2025-04-30" is before a "2025-05-01""#,
                ],
            ])
    }

    @Test func strictOrderRefusesEqualValues() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\na: number\nb: number\nc: number",
            steps: "- validate: order\n  collection: items\n  fields: [a, b, c]\n  strict: true",
            records: #"[{"id":1,"a":1,"b":2,"c":3},{"id":2,"a":1,"b":1,"c":3},{"id":3,"a":1,"b":4,"c":3}]"#)
        #expect(RuleHarness.keptIDs(result) == [.int(1)])
        #expect(result.rejects("items").map(\.findings[0].message) == ["b 1 is not after a 1", "c 3 is before b 4"])
    }

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
        func messages(_ step: String) -> [String] {
            Harness.definitionErrors(
                """
                name: t
                sources:
                  items: {kind: json, path: data.json, fields: {a: string, b: string, flag: string}}
                steps:
                  - \(step)
                outputs:
                  - {file: i.json, collection: items}
                """
            ).map(\.message)
        }
        #expect(
            messages("{validate: order, collection: items, fields: [a]}").contains {
                $0.contains("needs two or more fields")
            })
        #expect(
            messages("{validate: only-when, collection: items, field: a, when: flag}").contains {
                $0.contains("'when' needs a boolean field; 'flag' is string")
            })
        #expect(
            messages("{validate: only-when, collection: items, field: a, when: a}").contains {
                $0.contains("'when' needs a boolean field")
            })
        #expect(messages("{validate: order, collection: items, fields: [a, flag], strict: true}").isEmpty)
        #expect(
            messages("{validate: order, collection: items, fields: [a, a]}").contains {
                $0.contains("field 'a' is listed twice in 'fields'")
            })
    }
}
