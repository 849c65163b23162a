import Foundation
import Testing

@testable import SeedForge

/// Runs the text steps (`template`, `coalesce`, `replace`) on inline shop records.
enum TextStepHarness {
    static func run(_ steps: String, _ records: String) throws -> RunResult {
        try Harness.run(
            """
            name: t
            sources:
              shops: {kind: json, path: shops.json, fields: {name: string, nick: string, address: string, city: string, rating: number}}
            steps:
            \(steps)
            outputs:
              - {file: shops.json, collection: shops}
            """, files: ["shops.json": records])
    }
}
