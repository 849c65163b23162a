import Foundation
import Testing

@testable import SeedForge

/// `normalize: coalesce`: the first of several fields that has a value.
@Suite("Normalize: coalesce")
struct CoalesceTests {
    @Test func coalesceTakesTheFirstValue() throws {
        let result = try TextStepHarness.run(
            """
              - normalize: coalesce
                collection: shops
                from: [nick, name]
                into: label
            """, #"[{"nick":"Hive","name":"The Hive"},{"nick":"  ","name":"Golden Comb"},{"nick":null,"name":null}]"#)
        #expect(result.records("shops").map { $0["label"] } == [.string("Hive"), .string("Golden Comb"), .null])
        #expect(result.state.schemas["shops"]!.fields.last?.type == .string)
    }
}
