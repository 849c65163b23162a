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

    /// The definition errors of one step over text fields `a`, `b` and `flag`.
    static func definitionMessages(_ step: String) -> [String] {
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
}
