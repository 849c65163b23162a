import Foundation
import Testing

@testable import SeedForge

/// A collection sorted past the memory limit is kept as its sorted runs: every reader
/// merges them as it reads, and must see the sorted order, however often it reads and
/// whatever it does next (change the records, append more, read side by side).
@Suite("Model: record store")
struct RecordStoreTests {
    /// A store of `count` records (`[key, position]`, keys 0 to 9 with ties) spilled in
    /// batches of 4, sorted past the limit by key.
    static func sorted(_ count: Int, threads: Int = 1) throws -> (RecordStore, SpillSpace, SourceText) {
        let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
        let folder = NSTemporaryDirectory() + "record-store-\(UUID().uuidString)"
        // 4 KiB: batches of 4 records.
        let space = SpillSpace(limit: 4_096, folder: folder, threads: Threads(threads))
        space.sources = { [source] }
        let store = RecordStore(width: 2, space: space)
        for position in 0..<count {
            store.append(
                Record(
                    values: [.int(Int64(position * 7 % 10)), .int(Int64(position))],
                    origin: Origin(source: source, offset: position, index: position)))
        }
        try store.spillResident()
        try SortedRuns.sort(store, space: space, threads: Threads(threads), reading: [FieldID(index: 0)]) {
            record, key in
            key.append(record[FieldID(index: 0)], text: .exact)
        }
        return (store, space, source)
    }

    /// The records' positions (second value) in the order a reader gets them.
    static func positions(_ store: RecordStore) throws -> [Int] {
        var positions: [Int] = []
        try store.forEachBatch { batch in
            #expect(batch.count <= 4)
            for record in batch {
                guard case .int(let position) = record[FieldID(index: 1)] else { return }
                positions.append(Int(position))
            }
        }
        return positions
    }

    static func expected(_ count: Int) -> [Int] {
        (0..<count).sorted { a, b in a * 7 % 10 != b * 7 % 10 ? a * 7 % 10 < b * 7 % 10 : a < b }
    }

    /// Under a tiny limit every append spills: those spills append to one file, where each
    /// had a file (and a descriptor) of its own, so 240k cities under `--memory-limit 1`
    /// stopped with "Too many open files".
    @Test func spillsOfOneStoreShareOneFile() throws {
        let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
        let folder = NSTemporaryDirectory() + "record-store-\(UUID().uuidString)"
        let space = SpillSpace(limit: 1, folder: folder, threads: 1)
        space.sources = { [source] }
        let store = RecordStore(width: 2, space: space)
        // Descriptors open on files of this store's spill folder (unlinked as soon as made,
        // still named by the link): other tests open and close files at the same time.
        func descriptors() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { fd in
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? ""
                return target.hasPrefix(folder + "/")
            }.count
        }
        let before = try descriptors()
        #expect(before == 0)
        for position in 0..<3_000 {
            store.append(
                Record(
                    values: [.int(Int64(position)), .string("city \(position)")],
                    origin: Origin(source: source, offset: position, index: position)))
            try space.check()
        }
        try store.spillResident()
        #expect(store.isSpilled)
        #expect(space.spilledRecords == 3_000)
        let opened = try descriptors() - before
        #expect((1...2).contains(opened), "\(opened) descriptors open on spill files")
        var positions: [Int] = []
        try store.forEachBatch { batch in
            for record in batch {
                if case .int(let position) = record[FieldID(index: 0)] { positions.append(Int(position)) }
            }
        }
        #expect(positions == Array(0..<3_000))
    }

    @Test(arguments: [1, 3])
    func aSortedCollectionIsReadAsTheMergeOfItsRunsWithoutBeingWrittenAgain(threads: Int) throws {
        let (store, space, _) = try Self.sorted(37, threads: threads)
        let written = space.spilledRecords
        #expect(store.count == 37)
        #expect(store.isSpilled)
        // Read twice: each read merges the runs again, and nothing is written.
        #expect(try Self.positions(store) == Self.expected(37))
        #expect(try Self.positions(store) == Self.expected(37))
        #expect(space.spilledRecords == written)
        // As bytes, in batches whose first positions follow each other.
        var firsts: [Int] = []
        var total = 0
        try store.forEachEncodedBatch { _, count, first in
            firsts.append(first)
            total += count
        }
        #expect(total == 37)
        #expect(firsts == Array(stride(from: 0, to: 37, by: 4)))
        #expect(space.spilledRecords == written)
        #expect(store.all().map { $0[FieldID(index: 1)] } == Self.expected(37).map { .int(Int64($0)) })
    }

    @Test func recordsAppendedAfterASortComeAfterTheSortedOnes() throws {
        let (store, space, source) = try Self.sorted(21)
        for position in 21..<30 {
            store.append(
                Record(values: [.int(0), .int(Int64(position))], origin: Origin(source: source, offset: 0, index: 0)))
        }
        // The records in memory spill behind the runs' records, which become batches first.
        try store.spillResident()
        #expect(try Self.positions(store) == Self.expected(21) + Array(21..<30))
        #expect(space.spilledRecords >= 21 + 21 + 9)
    }

    @Test func changingASortedCollectionWritesItsBatchesInOrder() throws {
        let (store, _, _) = try Self.sorted(25)
        // A batch kept as it is (nil) is written too: a batch cut from the merge is on disk
        // only once written.
        try store.rewriteEncoded { bytes, count, first in first == 4 ? (bytes: [], count: 0) : nil }
        var expected = Self.expected(25)
        expected.removeSubrange(4..<8)
        #expect(try Self.positions(store) == expected)
        #expect(store.count == 21)
        try store.rewrite { records in records.removeAll { $0[FieldID(index: 0)] == .int(0) } }
        #expect(try Self.positions(store) == expected.filter { $0 * 7 % 10 != 0 })
    }

    @Test func readersSideBySideReadTheSortedOrder() throws {
        let (store, _, _) = try Self.sorted(30, threads: 2)
        let orders = try store.sharingDecodedBatches(readers: 2) {
            Threads(2).run(2) { _ in Result { try Self.positions(store) } }
        }
        #expect(try orders.map { try $0.get() } == [Self.expected(30), Self.expected(30)])
    }

    /// The one reader of a sorted collection in the outputs (`readers: 1`) frees the runs
    /// behind its pass: a first pass over a few fields (an output's `where` count) does
    /// not, and both see every record in the sorted order.
    @Test func theOneReaderOfSortedRunsReadsTheSortedOrder() throws {
        let (store, _, _) = try Self.sorted(3_000)
        let (counted, order) = try store.sharingDecodedBatches(readers: 1) {
            var counted = 0
            try store.forEachBatch(reading: [true, false]) { counted += $0.count }
            return (counted, try Self.positions(store))
        }
        #expect(counted == 3_000)
        #expect(order == Self.expected(3_000))
        #expect(store.count == 3_000)
    }

    /// A spilled store of `count` records (`[0, position]`) in batches of 4.
    static func spilled(_ count: Int, threads: Int = 1) throws -> (RecordStore, SpillSpace) {
        let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
        let space = SpillSpace(
            limit: 4_096, folder: NSTemporaryDirectory() + "record-store-\(UUID().uuidString)",
            threads: Threads(threads))
        space.sources = { [source] }
        let store = RecordStore(width: 2, space: space)
        for position in 0..<count {
            store.append(
                Record(
                    values: [.int(0), .int(Int64(position))],
                    origin: Origin(source: source, offset: position, index: position)))
        }
        try store.spillResident()
        return (store, space)
    }

    /// Dropped records (dedupe's losers) are left out by every reader, without a pass
    /// that writes the batches again; a second drop numbers records as readers see them.
    @Test func droppedRecordsAreLeftOutByEveryReaderWithoutBeingWrittenAgain() throws {
        let (store, space) = try Self.spilled(30, threads: 2)
        let written = space.spilledRecords
        // A whole batch (4 to 7), the first record, the last.
        try store.drop([0, 4, 5, 6, 7, 11, 29])
        var expected = Array(0..<30).filter { ![0, 4, 5, 6, 7, 11, 29].contains($0) }
        #expect(store.count == expected.count)
        #expect(try Self.positions(store) == expected)
        #expect(space.spilledRecords == written)
        // Positions as readers number them now: the 1st, 4th and 5th left.
        try store.drop([0, 3, 4])
        expected.remove(at: 4)
        expected.remove(at: 3)
        expected.remove(at: 0)
        #expect(try Self.positions(store) == expected)
        #expect(store.all().map { $0[FieldID(index: 1)] } == expected.map { .int(Int64($0)) })
        var firsts: [Int] = []
        var total = 0
        try store.forEachEncodedBatch { _, count, first in
            #expect(first == total)
            firsts.append(first)
            total += count
        }
        #expect(total == expected.count)
        #expect(space.spilledRecords == written)
        // Readers side by side read batches as written: those with dropped records are
        // written again first.
        let orders = try store.sharingDecodedBatches(readers: 2) {
            Threads(2).run(2) { _ in Result { try Self.positions(store) } }
        }
        #expect(try orders.map { try $0.get() } == [expected, expected])
        #expect(space.spilledRecords > written)
        #expect(try Self.positions(store) == expected)
    }

    @Test func aChangeAfterADropKeepsTheRecordsLeft() throws {
        let (store, _) = try Self.spilled(17)
        try store.drop([2, 3, 16])
        try store.rewrite { records in records.removeAll { $0[FieldID(index: 1)] == .int(8) } }
        #expect(try Self.positions(store) == Array(0..<16).filter { ![2, 3, 8].contains($0) })
        #expect(store.count == 13)
    }

    /// `beforeSpill` sees every record before it is written, and only then: what it drops
    /// is never written and is counted; the records left in memory are untouched by it.
    @Test func recordsAreChangedOrDroppedJustBeforeTheyAreWritten() throws {
        let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
        let space = SpillSpace(
            limit: 4_096, folder: NSTemporaryDirectory() + "record-store-\(UUID().uuidString)", threads: Threads(1))
        space.sources = { [source] }
        defer { space.remove() }
        let store = RecordStore(width: 2, space: space)
        var seen = 0
        store.beforeSpill = { records in
            seen += records.count
            // Odd positions dropped, the others marked.
            records.removeAll { record in
                guard case .int(let position) = record[FieldID(index: 0)] else { return false }
                return position % 2 == 1
            }
            for index in records.indices { records[index][FieldID(index: 1)] = .string("spilled") }
        }
        for position in 0..<42 {
            store.append(
                Record(
                    values: [.int(Int64(position)), .null],
                    origin: Origin(source: source, offset: position, index: position)))
        }
        store.beforeSpill = nil
        let inMemory = store.resident.count
        #expect(store.isSpilled && seen > 0 && inMemory > 0)
        #expect(seen + inMemory == 42)
        #expect(space.spilledRecords == seen - store.droppedBeforeSpill)
        var read: [(Int, Value)] = []
        try store.forEachBatch { batch in
            for record in batch {
                guard case .int(let position) = record[FieldID(index: 0)] else { continue }
                read.append((Int(position), record[FieldID(index: 1)]))
            }
        }
        let expected: [(Int, Value)] =
            (0..<seen).filter { $0 % 2 == 0 }.map { ($0, .string("spilled")) } + (seen..<42).map { ($0, .null) }
        #expect(read.map(\.0) == expected.map(\.0))
        #expect(read.map(\.1) == expected.map(\.1))
        #expect(store.droppedBeforeSpill == (0..<seen).filter { $0 % 2 == 1 }.count)
    }

    /// Keys gathered as records are spilled (`spillKeys`: a dedupe's, after ingest's steps)
    /// must be the runs `SortedRuns.write` makes by reading the spilled records back, with
    /// the positions the records have in the collection; a change to the spilled records
    /// lets them go.
    @Test(arguments: [1, 3])
    func keysGatheredAsRecordsSpillAreThoseReadBack(threads: Int) throws {
        let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
        let space = SpillSpace(
            limit: 4_096, folder: NSTemporaryDirectory() + "record-store-\(UUID().uuidString)",
            threads: Threads(threads))
        space.sources = { [source] }
        defer { space.remove() }
        let entry: (Record, inout ByteKey, inout [UInt8]) -> Bool = { record, key, payload in
            guard case .int(let value) = record[FieldID(index: 0)], value % 5 != 0 else { return false }
            key.append(.int(value % 9), text: .exact)
            payload.append(UInt8(value % 200))
            return true
        }
        func store(gathering: Bool) -> RecordStore {
            let store = RecordStore(width: 2, space: space)
            if gathering {
                store.spillKeys = RecordStore.SpillKeys(
                    step: 4, gathering: SortedRuns.Gathering(space: space, threads: Threads(threads)), entry: entry)
            }
            // Dropped before they are written: positions count only the records spilled.
            store.beforeSpill = { records in records.removeAll { $0[FieldID(index: 0)] == .int(13) } }
            // The last 2 stay in memory until the keys are taken.
            for position in 0..<302 {
                store.append(
                    Record(
                        values: [.int(Int64(position % 37)), .int(Int64(position))],
                        origin: Origin(source: source, offset: position, index: position)))
            }
            store.beforeSpill = nil
            return store
        }
        func entries(_ runs: SortedRuns.Runs) throws -> [[Int]] {
            var entries: [[Int]] = []
            try SortedRuns.merge(runs) {
                entries.append([$0.position] + $0.key.map(Int.init) + $0.payload.map(Int.init))
            }
            return entries
        }
        let gathered = store(gathering: true)
        #expect(gathered.isSpilled && !gathered.resident.isEmpty)
        // Another step's number: not these keys.
        let other = store(gathering: true)
        #expect(try other.takeSpillKeys(step: 5) == nil)
        #expect(other.spillKeys == nil)
        let runs = try #require(try gathered.takeSpillKeys(step: 4))
        #expect(gathered.resident.isEmpty && gathered.spillKeys == nil)
        let plain = store(gathering: false)
        let readBack = try SortedRuns.write(
            plain, space: space, threads: Threads(threads), reading: [FieldID(index: 0)], entry)
        #expect(runs.count == readBack.count && runs.count > 0)
        #expect(try entries(runs) == entries(readBack))
        // A change to the spilled records (here a drop) lets the keys go.
        let changed = store(gathering: true)
        try changed.spillResident()
        try changed.drop([0])
        #expect(try changed.takeSpillKeys(step: 4) == nil)
    }
}
