import Testing

@testable import SeedForge

/// Runs rules on inline records: every rule test states which records pass and which
/// findings the others get.
enum RuleHarness {
    static func run(fields: String, steps: String, records: String) throws -> RunResult {
        try Harness.run(
            """
            name: rules
            sources:
              items:
                kind: json
                path: data.json
                id: id
                fields:
            \(fields.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
            steps:
            \(steps.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            outputs:
              - file: items.json
                collection: items
            thresholds:
              max-reject-fraction: 1
            """, files: ["data.json": records])
    }

    static func keptIDs(_ result: RunResult) -> [Value?] { result.records("items").map { $0["id"] } }
}

@Suite("Validate: rules")
struct RuleTests {
    @Test func requiredRejectsMissingNullAndBlankText() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- validate: required\n  collection: items\n  field: name",
            records: #"[{"id":1,"name":"A"},{"id":2},{"id":3,"name":null},{"id":4,"name":" \t "},{"id":5,"name":"0"}]"#)
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(5)])
        #expect(
            result.rejects("items").map(\.findings[0].message) == [
                "name is required but missing", "name is required but null", "name is required but blank",
            ])
        #expect(result.rejects("items")[0].findings[0].location?.pointer == "/1/name")
    }

    @Test func requiredCanAllowBlank() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- validate: required\n  collection: items\n  field: name\n  allow-blank: true",
            records: #"[{"id":1,"name":" "}]"#)
        #expect(result.rejects("items").isEmpty)
    }

    @Test func rangeReportsNeverClamps() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nrating: number",
            steps:
                "- validate: range\n  collection: items\n  field: rating\n  min: 0\n  max: 5\n  hint: never rescaled",
            records:
                #"[{"id":1,"rating":4.8},{"id":2,"rating":9.6},{"id":3,"rating":-0.1},{"id":4,"rating":0},{"id":5,"rating":5},{"id":6}]"#
        )
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(4), .int(5), .int(6)])
        #expect(result.records("items")[0]["rating"] == .double(4.8))
        #expect(
            result.rejects("items").map(\.findings[0].message) == [
                "rating 9.6 is above the maximum 5 (never rescaled)",
                "rating -0.1 is below the minimum 0 (never rescaled)",
            ])
        #expect(result.rejects("items")[0].findings[0].value == .double(9.6))
    }

    @Test func stepAcceptsHalfStarsOnly() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nrating: number",
            steps: "- validate: step\n  collection: items\n  field: rating\n  step: 0.5",
            records:
                #"[{"id":1,"rating":0.5},{"id":2,"rating":4.3},{"id":3,"rating":5},{"id":4,"rating":2.25},{"id":5,"rating":3.5000000000001}]"#
        )
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(3), .int(5)])
        #expect(
            result.rejects("items").map(\.findings[0].message) == [
                "rating 4.3 is not a multiple of 0.5", "rating 2.25 is not a multiple of 0.5",
            ])
    }

    @Test func lengthCountsCharactersAfterTrimming() throws {
        let eighty = String(repeating: "é", count: 80)
        let result = try RuleHarness.run(
            fields: "id: integer\ntitle: string",
            steps: "- validate: length\n  collection: items\n  field: title\n  max: 80",
            records:
                "[{\"id\":1,\"title\":\"  \(eighty)  \"},{\"id\":2,\"title\":\"\(eighty)!\"},{\"id\":3,\"title\":\"🐝\(String(repeating: "a", count: 79))\"}]"
        )
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(3)])
        #expect(result.rejects("items")[0].findings[0].message == "title has 81 characters, more than the maximum 80")
    }

    @Test(arguments: [
        ("https://thehouseofhoney.com.au", true), ("http://example.com/a?b=c#d", true), ("HTTPS://EXAMPLE.COM", true),
        ("www.honeyland.example.com", false), ("ftp://example.com/file", false), ("https://", false),
        ("javascript:alert(1)", false), ("https://exa mple.com", false), ("/relative/path", false), ("", false),
    ])
    func urlAcceptsAbsoluteHTTPOnly(url: String, valid: Bool) throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nwebsite: string",
            steps: "- validate: url\n  collection: items\n  field: website",
            records: "[{\"id\":1,\"website\":\"\(url)\"}]")
        #expect(result.rejects("items").isEmpty == valid, "\(url)")
    }

    @Test func timestampRequiresRFC3339() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nat: any",
            steps: "- validate: timestamp\n  collection: items\n  field: at",
            records:
                #"[{"id":1,"at":"2025-09-17T10:15:00Z"},{"id":2,"at":"2025-02-30T10:00:00Z"},{"id":3,"at":1758104100},{"id":4}]"#
        )
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(4)])
        #expect(
            result.rejects("items")[1].findings[0].message.contains("must be an RFC 3339 timestamp text, found number"))
    }

    @Test func enumSuggestsTheNearestValue() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\ncategory: string",
            steps:
                "- validate: enum\n  collection: items\n  field: category\n  values: [Food, Museum, Sports, Historical]",
            records: #"[{"id":1,"category":"Food"},{"id":2,"category":"Musem"},{"id":3,"category":"food"}]"#)
        #expect(RuleHarness.keptIDs(result) == [.int(1)])
        #expect(result.rejects("items")[0].findings[0].message.contains("did you mean 'Museum'?"))
    }

    @Test func uniqueFlagsLaterRecordsAndNamesTheFirst() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- validate: unique\n  collection: items\n  field: id",
            records: "[{\"id\":1,\"name\":\"a\"},\n{\"id\":2},\n{\"id\":1,\"name\":\"b\"}]")
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(2)])
        let finding = try #require(result.rejects("items").first?.findings.first)
        #expect(finding.message.contains("is already used by the record at"))
        #expect(finding.message.contains(":1:2"))
        #expect(finding.location?.line == 3)
    }

    @Test func patternMatchesTheWholeText() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\ncode: string",
            steps:
                "- validate: pattern\n  collection: items\n  field: code\n  regex: \"[A-Z]{2}\"\n  description: a country code",
            records: #"[{"id":1,"code":"UA"},{"id":2,"code":"UAX"},{"id":3,"code":"ua"}]"#)
        #expect(RuleHarness.keptIDs(result) == [.int(1)])
        #expect(result.rejects("items")[0].findings[0].message == "code \"UAX\" does not match a country code")
    }

    @Test func consecutiveRulesReportEveryProblemOfARecordOnce() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string\nrating: number",
            steps: """
                - validate: required
                  collection: items
                  field: name
                - validate: range
                  collection: items
                  field: rating
                  max: 5
                """,
            records: #"[{"id":1,"rating":7}]"#)
        let rejects = result.rejects("items")
        #expect(rejects.count == 1)
        #expect(rejects[0].findings.map(\.rule) == ["required", "range"])
    }

    @Test func warningSeverityKeepsTheRecord() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nrating: number",
            steps: "- validate: range\n  collection: items\n  field: rating\n  max: 5\n  severity: warning",
            records: #"[{"id":1,"rating":7}]"#)
        #expect(RuleHarness.keptIDs(result) == [.int(1)])
        #expect(result.state.warnings.map(\.finding.rule) == ["range"])
    }

    @Test func perRuleThresholdsFailTheRun() throws {
        let failed = try RuleHarness.run(
            fields: "id: integer\nrating: number",
            steps: "- validate: range\n  collection: items\n  field: rating\n  max: 5\n  max-rejects: 1",
            records: #"[{"id":1,"rating":7},{"id":2,"rating":8},{"id":3,"rating":1}]"#)
        #expect(failed.thresholdFailures == ["validate: range rejected 2 items records, more than its max-rejects 1"])
        let ok = try RuleHarness.run(
            fields: "id: integer\nrating: number",
            steps: "- validate: range\n  collection: items\n  field: rating\n  max: 5\n  max-reject-fraction: 0.5",
            records: #"[{"id":1,"rating":7},{"id":2,"rating":1}]"#)
        #expect(ok.rejects("items").count == 1)
        #expect(ok.thresholdFailures.isEmpty)
    }

    @Test func pipelineThresholdsCountWholeCollections() throws {
        let result = try Harness.run(
            """
            name: t
            sources:
              items: {kind: json, path: data.json, fields: {id: integer}}
            outputs:
              - {file: items.json, collection: items}
            """, files: ["data.json": #"[{"id":"a"},{"id":"b"},{"id":3}]"#])
        // Which rule rejected them, on which field (issue 18).
        #expect(
            result.thresholdFailures == [
                "2 of 3 items records rejected (67%), more than thresholds.max-reject-fraction 0.5: rejected by type (field id) 2"
            ])
    }
}
