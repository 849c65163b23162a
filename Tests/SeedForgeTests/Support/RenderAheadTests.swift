import Testing

@testable import SeedForge

/// A file's batches are written one behind their rendering, in order, whatever the threads.
@Suite("Support: rendering a batch while the one before is written")
struct RenderAheadTests {
    private struct Failed: Error {}

    /// Every record's piece reaches the writer once, in order, each batch only after it was
    /// rendered, and the last one at `finish`; with 1 thread and with 3.
    @Test(arguments: [1, 3])
    func everyPieceIsWrittenOnceInOrderOneBatchBehind(threads: Int) throws {
        let budget = Threads(threads)
        var ahead = RenderAhead<[Int]>(threads: budget)
        var written: [Int] = []
        var writes = 0
        let batches = [0, 1, 4_095, 4_096, 70_000, 9]
        var first = 0
        for (number, count) in batches.enumerated() {
            let base = first
            try ahead.batch(
                count, render: { range in Array((base + range.lowerBound)..<(base + range.upperBound)) },
                write: { pieces in
                    writes += 1
                    // Written while the next batch renders: never the one being rendered now.
                    #expect(pieces.joined().allSatisfy { $0 < base } || pieces.isEmpty, "batch \(number)")
                    written += pieces.joined()
                })
            first += count
        }
        try ahead.finish(write: { pieces in
            writes += 1
            written += pieces.joined()
        })
        #expect(written == Array(0..<first))
        #expect(writes == batches.count + 1)
    }

    /// A write that fails stops the file: its error comes out of the next batch.
    @Test func aFailedWriteComesOutOfTheNextBatch() throws {
        var ahead = RenderAhead<Int>(threads: Threads(2))
        try ahead.batch(10, render: { $0.count }, write: { _ in })
        #expect(throws: Failed.self) {
            try ahead.batch(10, render: { $0.count }, write: { _ in throw Failed() })
        }
    }
}
