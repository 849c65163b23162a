import Testing

@testable import SeedForge

/// `normalize: split`, on the pipeline of `ToBooleanTests` (which uses both steps).
@Suite("Normalize: split")
struct SplitTests {
    @Test func textBecomesLists() throws {
        let result = try Harness.run(ToBooleanTests.yaml, files: ["places.json": ToBooleanTests.places])
        let places = result.records("places")
        #expect(
            places.map { $0["tagList"] } == [
                .array([.string("Beach"), .string("Hike")]), .array([.string("Beach")]), .array([]), .null, .null,
            ])
    }
}
