import Foundation

/// The spilled batches of one collection, decoded once for the several readers that go
/// through them side by side (in the output phase: every output of the collection and the
/// change snapshot). The first reader to reach a batch decodes it and keeps it for the
/// others; the last reader to take it lets it go.
///
/// Memory stays bounded: at most `capacity` decoded batches are kept. A reader that finds
/// the cache full waits while another reader behind it is still reading (that reader
/// frees room as it catches up), else it decodes the batch for itself; a kept batch every
/// reader under way has passed is let go when room is needed. The reader furthest
/// behind never waits for room, so readers that run one after another (`--threads 1`)
/// never block: they only decode more. What a reader gets never depends on timing, only
/// how often a batch is decoded does.
final class SharedBatches<Element>: @unchecked Sendable {
    /// How many readers will go through the batches (each once).
    let readers: Int
    /// Decoded batches kept at most.
    let capacity: Int

    private enum Entry {
        /// A reader is decoding it: the others wait for it rather than decode it too.
        case decoding
        case ready([Element])
    }

    private let condition = NSCondition()
    private var entries: [Int: Entry] = [:]
    /// How many readers took each batch so far.
    private var taken: [Int: Int] = [:]
    /// The batch each reader going through the batches is at.
    private var positions: [Int: Int] = [:]
    private var nextReader = 0
    /// Batches decoded, for tests and the log.
    private(set) var decodes = 0

    init(readers: Int, capacity: Int = 2) {
        self.readers = readers
        self.capacity = max(1, capacity)
    }

    /// Calls `body` with batches `0..<count` in order, each decoded by `decode` unless
    /// another reader decoded it already and kept it.
    func read(_ count: Int, decode: (Int) -> [Element], _ body: ([Element]) throws -> Void) throws {
        let reader = begin()
        defer { end(reader) }
        for index in 0..<count {
            try body(batch(index, reader: reader, decode: decode))
        }
    }

    private func begin() -> Int {
        condition.lock()
        defer { condition.unlock() }
        let reader = nextReader
        nextReader += 1
        positions[reader] = 0
        return reader
    }

    private func end(_ reader: Int) {
        condition.lock()
        positions.removeValue(forKey: reader)
        condition.broadcast()
        condition.unlock()
    }

    private func batch(_ index: Int, reader: Int, decode: (Int) -> [Element]) -> [Element] {
        condition.lock()
        positions[reader] = index
        condition.broadcast()
        while true {
            switch entries[index] {
            case .ready(let records)?:
                take(index)
                condition.unlock()
                return records
            case .decoding?:
                // Its decoder is running: it finishes without waiting for anyone.
                condition.wait()
                continue
            case nil:
                break
            }
            let othersLeft = readers - (taken[index] ?? 0) - 1
            if entries.count >= capacity { evictPassed() }
            if othersLeft > 0, entries.count >= capacity, someoneBehind(index, reader: reader) {
                condition.wait()
                continue
            }
            let keep = othersLeft > 0 && entries.count < capacity
            if keep { entries[index] = .decoding }
            decodes += 1
            condition.unlock()
            let records = decode(index)
            condition.lock()
            if keep {
                entries[index] = .ready(records)
                condition.broadcast()
            }
            taken[index, default: 0] += 1
            condition.unlock()
            return records
        }
    }

    /// A reader takes a kept batch; the last one lets it go.
    private func take(_ index: Int) {
        let count = (taken[index] ?? 0) + 1
        taken[index] = count
        if count >= readers {
            entries.removeValue(forKey: index)
            condition.broadcast()
        }
    }

    /// Lets go of kept batches that every reader going through the batches now has passed
    /// (a reader that starts later decodes them for itself).
    private func evictPassed() {
        guard let lowest = positions.values.min() else { return }
        for (index, entry) in entries where index < lowest {
            if case .ready = entry { entries.removeValue(forKey: index) }
        }
    }

    private func someoneBehind(_ index: Int, reader: Int) -> Bool {
        positions.contains { $0.key != reader && $0.value < index }
    }
}
