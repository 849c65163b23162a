import Foundation
import Testing

@testable import SeedForge

/// `validate: order`: values that must not decrease across fields (a trip that ends
/// before it starts), as the adventure log needs.
@Suite("Validate: order")
struct OrderRuleTests {
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

    @Test func mistakesAreDefinitionErrors() {
        #expect(
            RuleHarness.definitionMessages("{validate: order, collection: items, fields: [a]}").contains {
                $0.contains("needs two or more fields")
            })
        #expect(
            RuleHarness.definitionMessages("{validate: order, collection: items, fields: [a, flag], strict: true}")
                .isEmpty)
        #expect(
            RuleHarness.definitionMessages("{validate: order, collection: items, fields: [a, a]}").contains {
                $0.contains("field 'a' is listed twice in 'fields'")
            })
    }
}
