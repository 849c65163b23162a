import Testing

@testable import SeedForge

/// What every validate step does around its rule: consecutive steps as one pass, severity, per-rule and pipeline thresholds.
@Suite("Validate: steps (passes, severity, thresholds)")
struct ValidateStepTests {
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
