import Testing

@testable import SeedForge

@Suite("Partition point")
struct PartitionPointTests {
    /// Against a linear scan: every split of sorted lists with repeats, empty lists and
    /// slices that do not start at 0.
    @Test func findsTheFirstElementPastThePredicateAsALinearScanDoes() {
        var generator = SplitMix64(state: 7)
        for length in 0..<40 {
            let values = (0..<length).map { _ in Int.random(in: 0..<12, using: &generator) }.sorted()
            for bound in -1...13 {
                let scanned = values.firstIndex { !($0 < bound) } ?? values.endIndex
                #expect(values.partitionPoint { $0 < bound } == scanned, "\(values) < \(bound)")
                let slice = values.dropFirst(length / 3)
                #expect(slice.partitionPoint { $0 <= bound } == (slice.firstIndex { $0 > bound } ?? slice.endIndex))
            }
        }
    }
}
