import Foundation
import Testing

@testable import SeedForge

/// Batches decoded once for several readers (the output phase of a spilled collection):
/// every reader gets every batch in order, whatever the readers' pace, and nothing waits
/// forever when the readers run one after another.
@Suite("Model: shared decoded batches")
struct SharedBatchesTests {
    /// Decodes made, counted from every reader's thread.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    /// A batch as its decoder makes it: ten numbers that say which batch it is.
    static func decoded(_ index: Int) -> [Int] { (0..<10).map { index * 10 + $0 } }

    static func read(_ shared: SharedBatches<Int>, batches: Int, decodes: Counter, slow: Bool) throws -> [Int] {
        var seen: [Int] = []
        try shared.read(
            batches,
            decode: { index in
                decodes.add()
                return decoded(index)
            }
        ) { batch in
            seen += batch
            if slow { usleep(200) }
        }
        return seen
    }

    @Test(arguments: [1, 2, 3, 4])
    func everyReaderGetsEveryBatchInOrder(threads: Int) throws {
        let batches = 40
        let readers = 3
        let shared = SharedBatches<Int>(readers: readers)
        let decodes = Counter()
        let results = Threads(threads).run(readers) { reader in
            Result { try Self.read(shared, batches: batches, decodes: decodes, slow: reader == 1) }
        }
        let expected = (0..<batches).flatMap(Self.decoded)
        for result in results { #expect(try result.get() == expected) }
        let count = decodes.value
        #expect(count == shared.decodes)
        #expect(count >= batches && count <= batches * readers, "\(count) decodes")
    }

    /// Readers one after another: the first keeps its last batches for the others, the
    /// others decode the rest themselves (the cache never holds more than its capacity).
    @Test func readersOneAfterAnotherDecodeForThemselves() throws {
        let shared = SharedBatches<Int>(readers: 2, capacity: 2)
        let decodes = Counter()
        let first = try Self.read(shared, batches: 10, decodes: decodes, slow: false)
        let second = try Self.read(shared, batches: 10, decodes: decodes, slow: false)
        #expect(first == second)
        #expect(first == (0..<10).flatMap(Self.decoded))
        #expect(decodes.value == 18)
    }
}
