import Foundation
import Testing

@testable import SeedForge

/// A sorted run as `SortedRuns.Pending` writes it (entries gathered in pieces, serialized
/// a group at a time on several threads) must hand the merge every present entry, in key
/// order then input position, with its own payload, and its bytes must not depend on the
/// thread count.
@Suite("SortedRuns runs")
struct SortedRunsTests {
    struct Entry: Equatable {
        let key: [UInt8]
        let position: Int
        let payload: [UInt8]
    }

    /// Gathers `keys` (nil: the record has none) with their payloads in pieces of `piece`
    /// entries, flushes them as one run after `base` earlier entries, and merges it back.
    static func roundTrip(
        keys: [[UInt8]?], payloads: [[UInt8]], piece: Int, base: Int, threads: Int
    ) throws -> (entries: [Entry], bytes: [UInt8]) {
        var pending = SortedRuns.Pending(base: base)
        var start = 0
        while start < keys.count {
            let end = min(start + piece, keys.count)
            var table = KeyTable()
            var bytes: [UInt8] = []
            var ends: [Int] = []
            for index in start..<end {
                table.append(keys[index] ?? [], present: keys[index] != nil)
                bytes += payloads[index]
                ends.append(bytes.count)
            }
            pending.add(table, bytes, ends)
            start = end
        }
        var runs = SortedRuns.Runs(file: try SpillFile(folder: NSTemporaryDirectory()))
        try pending.flush(to: &runs, threads: Threads(threads))
        #expect(pending.base == base + keys.count)
        var entries: [Entry] = []
        try SortedRuns.merge(runs) { entry in
            entries.append(Entry(key: Array(entry.key), position: entry.position, payload: Array(entry.payload)))
        }
        let span = runs.spans.first ?? (offset: 0, length: 0)
        return (entries, span.length == 0 ? [] : runs.file.read(at: span.offset, count: span.length))
    }

    @Test(arguments: [0, 1, 5, 70_000])
    func aRunHandsBackEveryPresentEntryInOrderWithItsPayload(count: Int) throws {
        var generator = SplitMix64(state: 7)
        let stems = KeyTableSortTests.randomKeys(count, using: &generator)
        // Every seventh record has no key; payloads of 0 to 200 bytes (past a varint byte).
        let keys: [[UInt8]?] = stems.indices.map { $0 % 7 == 3 ? nil : stems[$0] }
        let payloads: [[UInt8]] = (0..<count).map { index in
            (0..<(index * 37 % 201)).map { UInt8(truncatingIfNeeded: index &+ $0) }
        }
        let base = 1_000
        let expected = keys.indices.filter { keys[$0] != nil }
            .sorted { a, b in
                if keys[a]! != keys[b]! { return keys[a]!.lexicographicallyPrecedes(keys[b]!) }
                return a < b
            }
            .map { Entry(key: keys[$0]!, position: base + $0, payload: payloads[$0]) }
        let one = try Self.roundTrip(keys: keys, payloads: payloads, piece: 3_000, base: base, threads: 1)
        let three = try Self.roundTrip(keys: keys, payloads: payloads, piece: 3_000, base: base, threads: 3)
        #expect(one.entries.count == expected.count)
        let differs = expected.indices.first { $0 >= one.entries.count || one.entries[$0] != expected[$0] }
        #expect(differs == nil, "the merged entries differ from entry \(differs ?? -1)")
        #expect(one.bytes == three.bytes)
    }

    /// Reused after a flush (its buffers kept for the next run), a pending run holds only
    /// the entries added since: each run hands back its own entries with their payloads,
    /// positions going on from the run before, and the memory kept is still counted.
    @Test func aPendingRunReusedAfterAFlushHoldsOnlyTheEntriesAddedSince() throws {
        var generator = SplitMix64(state: 21)
        let keys = KeyTableSortTests.randomKeys(9_000, using: &generator)
        func payload(_ index: Int) -> [UInt8] {
            // Later runs have shorter payloads: the first run's buffer is the largest.
            (0..<(index % 50 + 80 - index / 3_000 * 40)).map { UInt8(truncatingIfNeeded: index &+ $0) }
        }
        var pending = SortedRuns.Pending(base: 0)
        var runs = SortedRuns.Runs(file: try SpillFile(folder: NSTemporaryDirectory()))
        var firstPayloads = 0
        for run in 0..<3 {
            var table = KeyTable()
            var bytes: [UInt8] = []
            var ends: [Int] = []
            for index in (run * 3_000)..<((run + 1) * 3_000) {
                table.append(keys[index], present: true)
                bytes += payload(index)
                ends.append(bytes.count)
            }
            if run == 0 { firstPayloads = bytes.count }
            pending.add(table, bytes, ends)
            try pending.flush(to: &runs, threads: Threads(2))
            #expect(pending.base == (run + 1) * 3_000)
            #expect(pending.bytes == 0)
            #expect(pending.heldBytes >= firstPayloads)
        }
        #expect(runs.spans.count == 3)
        let every = PositionSet(Array(0..<9_000))
        for run in 0..<3 {
            var entries: [Entry] = []
            SortedRuns.pick(every, from: runs, run: run) {
                entries.append(Entry(key: Array($0.key), position: $0.position, payload: Array($0.payload)))
            }
            let expected = ((run * 3_000)..<((run + 1) * 3_000))
                .sorted { a, b in keys[a] != keys[b] ? keys[a].lexicographicallyPrecedes(keys[b]) : a < b }
                .map { Entry(key: keys[$0], position: $0, payload: payload($0)) }
            #expect(entries == expected, "run \(run)")
        }
    }

    /// Entries whose payloads are consecutive records' bytes, added a batch at a time as one
    /// copy (a spilled sort), must give the runs that the same payloads appended entry by
    /// entry give: every entry with a key, in order, with its own bytes; those without a key
    /// left out though their bytes are in the batch.
    @Test(arguments: [1, 3])
    func payloadsAddedAsABatchGiveTheRunsOfPayloadsAddedOneByOne(threads: Int) throws {
        var generator = SplitMix64(state: 13)
        let count = 30_000
        let keys = KeyTableSortTests.randomKeys(count, using: &generator)
        var bytes: [UInt8] = []
        var starts = [0]
        for index in 0..<count {
            bytes += (0..<(index * 31 % 97)).map { UInt8(truncatingIfNeeded: index &+ $0) }
            starts.append(bytes.count)
        }
        func runs(carrying: Bool) throws -> [Entry] {
            let folder = NSTemporaryDirectory() + "sorted-runs-\(UUID().uuidString)"
            // A limit small enough that the 30,000 entries make several runs.
            let space = SpillSpace(limit: 16 << 20, folder: folder, threads: Threads(threads))
            defer { space.remove() }
            let gathering = SortedRuns.Gathering(space: space, threads: Threads(threads))
            try bytes.withUnsafeBufferPointer { bytes in
                // Two batches, the second starting at record 10,000.
                for batch in [0..<10_000, 10_000..<count] {
                    let batchStarts = starts[batch.lowerBound...batch.upperBound].map { $0 - starts[batch.lowerBound] }
                    let batchBytes = UnsafeBufferPointer(
                        rebasing: bytes[starts[batch.lowerBound]..<starts[batch.upperBound]])
                    func key(_ index: Int, _ key: inout ByteKey) -> Bool {
                        let record = batch.lowerBound + index
                        guard record % 5 != 2 else { return false }
                        key = ByteKey(bytes: keys[record])
                        return true
                    }
                    if carrying {
                        try gathering.add(count: batch.count, carrying: batchBytes, starts: batchStarts, key)
                    } else {
                        try gathering.add(count: batch.count) { index, entry, payloads in
                            guard key(index, &entry) else { return false }
                            payloads += batchBytes[batchStarts[index]..<batchStarts[index + 1]]
                            return true
                        }
                    }
                }
            }
            var entries: [Entry] = []
            try SortedRuns.merge(try gathering.finish()) {
                entries.append(Entry(key: Array($0.key), position: $0.position, payload: Array($0.payload)))
            }
            return entries
        }
        let carried = try runs(carrying: true)
        #expect(carried.count == count - count / 5)
        #expect(carried.allSatisfy { Array(bytes[starts[$0.position]..<starts[$0.position + 1]]) == $0.payload })
        #expect(carried == (try runs(carrying: false)))
    }

    /// A run of several groups (more than `groupEntries` entries: each group serialized
    /// while the one before is written) keeps a mark every `markEvery` entries, each at the
    /// offset in the file where the entry with its key starts, for any thread count: a merge
    /// of a key range starts reading there.
    @Test(arguments: [1, 2, 3])
    func marksOfARunOfSeveralGroupsPointAtTheirEntries(threads: Int) throws {
        var generator = SplitMix64(state: 5)
        let count = 2 * SortedRuns.Pending.groupEntries + 1_234
        let keys = KeyTableSortTests.randomKeys(count, using: &generator)
        var pending = SortedRuns.Pending(base: 0)
        var table = KeyTable()
        var payloads: [UInt8] = []
        var ends: [Int] = []
        for index in 0..<count {
            table.append(keys[index], present: true)
            payloads += [UInt8](repeating: UInt8(index % 251), count: index % 9)
            ends.append(payloads.count)
        }
        pending.add(table, payloads, ends)
        var runs = SortedRuns.Runs(file: try SpillFile(folder: NSTemporaryDirectory()))
        try pending.flush(to: &runs, threads: Threads(threads))
        let span = try #require(runs.spans.first)
        let marks = runs.marks[0]
        #expect(marks.count == (count + SortedRuns.markEvery - 1) / SortedRuns.markEvery)
        for mark in marks {
            let reader = SortedRuns.RunReader(
                file: runs.file, offset: mark.offset, length: span.offset + span.length - mark.offset)
            #expect(reader.advance())
            #expect(Array(reader.key) == mark.key)
        }
    }

    /// Under a tiny memory limit every batch of a few records is a run of its own, and the
    /// merge reads tens of thousands of them at once: each reader's window is the size of
    /// its run, not 256 KiB (240k cities under `--memory-limit 1` held 573 MiB in them).
    @Test func aMergeOfManyTinyRunsHoldsWindowsOfTheirSize() throws {
        let count = 20_000
        var runs = SortedRuns.Runs(file: try SpillFile(folder: NSTemporaryDirectory()))
        var pending = SortedRuns.Pending(base: 0)
        for index in 0..<count {
            var table = KeyTable()
            // Keys in reverse of input order: the merge must take from every run.
            table.append(Array(String(format: "%08d", count - index).utf8), present: true)
            pending.add(table, [UInt8(index % 251)], [1])
            try pending.flush(to: &runs, threads: Threads(1))
        }
        #expect(runs.spans.count == count)
        let merge = SortedRuns.Merge(runs)
        let runBytes = runs.spans.reduce(0) { $0 + $1.length }
        #expect(merge.windowBytes == runBytes, "windows of \(merge.windowBytes) bytes for runs of \(runBytes)")
        var positions: [Int] = []
        _ = merge.next(.max) { entry in positions.append(entry.position) }
        #expect(positions == Array((0..<count).reversed()))
    }

    /// `count` runs of `size` entries each, gathered one after another into one spill file:
    /// keys of six digits drawn below `below`, entry `index` carrying `payload(index)` bytes
    /// of `index % 251`.
    private func runsOfRandomKeys(
        count: Int, size: Int, below: UInt64, seed: UInt64, payload: (Int) -> Int
    ) throws -> SortedRuns.Runs {
        var runs = SortedRuns.Runs(file: try SpillFile(folder: NSTemporaryDirectory()), windowBudget: 128 << 10)
        var pending = SortedRuns.Pending(base: 0)
        var generator = SplitMix64(state: seed)
        for index in 0..<count * size {
            var table = KeyTable()
            table.append(Array(String(format: "%06d", Int(generator.next() % below)).utf8), present: true)
            let length = payload(index)
            pending.add(table, [UInt8](repeating: UInt8(index % 251), count: length), [length])
            if index % size == size - 1 { try pending.flush(to: &runs, threads: Threads(1)) }
        }
        return runs
    }

    /// Runs gathered past a memory limit share a budget for their windows (an eighth of the
    /// records' limit): many long runs are read through smaller windows, the parts of a cut
    /// merge share it, and what they hand over is the same.
    @Test func longRunsShareTheWindowBudget() throws {
        let runs = try runsOfRandomKeys(count: 8, size: 5_000, below: 50_000, seed: 5) { _ in 100 }
        #expect(runs.spans.count == 8)
        #expect(runs.spans.allSatisfy { $0.length > 500_000 })
        let whole = SortedRuns.Merge(runs)
        #expect(whole.windowBytes == 8 * (16 << 10))
        var merged: [Int] = []
        _ = whole.next(.max) { merged.append($0.position) }
        let parts = try SortedRuns.Merge.parts(runs, count: 2)
        #expect(parts.count == 2)
        #expect(parts.allSatisfy { $0.windowBytes == 8 * (8 << 10) })
        var cut: [Int] = []
        for part in parts { _ = part.next(.max) { cut.append($0.position) } }
        #expect(merged.count == 40_000)
        #expect(cut == merged)
    }

    /// A merge that frees the runs' pages as it reads them (`releasing`: their last read)
    /// hands over the same entries with the same payloads as one that does not: runs lie
    /// one after another in one file, sharing pages at their ends, and each reader frees
    /// only whole pages of its own run that it has read. Afterwards the freed pages read
    /// back as zeros (so the pages did go).
    @Test func aReleasingMergeHandsOverWhatAPlainMergeDoes() throws {
        // Runs of odd lengths (payloads of 1 to 97 bytes), so no run starts on a page.
        let runs = try runsOfRandomKeys(count: 6, size: 4_001, below: 30_000, seed: 11) { 1 + $0 % 97 }
        #expect(runs.spans.count == 6)
        func entries(_ merge: SortedRuns.Merge) -> [Entry] {
            var entries: [Entry] = []
            _ = merge.next(.max) {
                entries.append(Entry(key: Array($0.key), position: $0.position, payload: Array($0.payload)))
            }
            return entries
        }
        let plain = entries(SortedRuns.Merge(runs))
        let released = entries(SortedRuns.Merge(runs, releasing: true))
        #expect(plain.count == 6 * 4_001)
        #expect(released == plain)
        let total = runs.spans.reduce(0) { $0 + $1.length }
        let zeros = runs.file.read(at: runs.spans[0].offset, count: total).filter { $0 == 0 }.count
        #expect(zeros > total / 2, "\(zeros) of \(total) bytes freed")
    }

    /// Several runs cut into key ranges (`Merge.parts`) and merged part after part must hand
    /// over exactly the entries of one merge of all the runs, in its order, whatever the
    /// number of parts; a key's entries, here thousands of them across many marks, all fall
    /// in one part.
    @Test(arguments: [2, 3])
    func runsCutByKeyRangesMergeAsOne(parts: Int) throws {
        var generator = SplitMix64(state: 11)
        // 60,000 entries in 4 runs: 40 keys (1,500 entries each, some keys a prefix of
        // others) and a few distinct ones.
        let count = 60_000
        let keys: [[UInt8]] = (0..<count).map { index in
            let draw = Int(generator.next() % 1_000)
            if draw < 5 { return (0..<8).map { _ in UInt8(truncatingIfNeeded: generator.next()) } }
            let key = UInt8(draw % 40)
            return key % 4 == 0 ? [key] : [key, 7]
        }
        var runs = SortedRuns.Runs(file: try SpillFile(folder: NSTemporaryDirectory()))
        var pending = SortedRuns.Pending(base: 0)
        for index in 0..<count {
            var table = KeyTable()
            table.append(keys[index], present: true)
            pending.add(table, [UInt8(index % 251)], [1])
            if index % 15_000 == 14_999 { try pending.flush(to: &runs, threads: Threads(2)) }
        }
        #expect(runs.spans.count == 4)
        var whole: [Entry] = []
        try SortedRuns.merge(runs) {
            whole.append(Entry(key: Array($0.key), position: $0.position, payload: Array($0.payload)))
        }
        #expect(whole.count == count)
        // 16 marks (4 a run): cut into at most `parts`, never cut with fewer than 4 a part.
        #expect(try SortedRuns.Merge.parts(runs, count: 5).count == 1)
        let merges = try SortedRuns.Merge.parts(runs, count: parts)
        #expect(merges.count > 1 && merges.count <= parts)
        var cut: [Entry] = []
        var lastKeys: [[UInt8]] = []
        for merge in merges {
            var seen: [[UInt8]] = []
            _ = merge.next(.max) { entry in
                cut.append(Entry(key: Array(entry.key), position: entry.position, payload: Array(entry.payload)))
                if seen.last != Array(entry.key) { seen.append(Array(entry.key)) }
            }
            // No key in two parts.
            #expect(Set(seen).isDisjoint(with: Set(lastKeys)))
            lastKeys += seen
        }
        #expect(cut.count == whole.count)
        #expect(cut == whole)
    }

    /// Thousands of tiny runs under a small budget (each part of a cut merge would open a
    /// reader on every run, and the windows of all of them pass the budget): `bounded` first
    /// merges groups of them into longer runs, and the merges of what is left, whole or cut
    /// into parts, hold at most the budget in windows and hand over exactly the entries of
    /// one merge of the original runs, in its order.
    @Test(arguments: [1, 3])
    func manyTinyRunsAreMergedIntoFewerWithinTheBudget(parts: Int) throws {
        let budget = 256 << 10
        var runs = SortedRuns.Runs(file: try SpillFile(folder: NSTemporaryDirectory()), windowBudget: budget)
        var pending = SortedRuns.Pending(base: 0)
        var generator = SplitMix64(state: 3)
        let count = 6_000
        for index in 0..<count {
            var table = KeyTable()
            // 500 keys: most have entries in many runs, which the merges must keep in position order.
            table.append(Array(String(format: "%04d", Int(generator.next() % 500)).utf8), present: true)
            pending.add(table, [UInt8](repeating: UInt8(index % 251), count: 40), [40])
            if index % 2 == 1 { try pending.flush(to: &runs, threads: Threads(1)) }
        }
        #expect(runs.spans.count == count / 2)
        // Unbounded, the windows (each the size of its run) pass the budget.
        let unbounded = SortedRuns.Merge(runs)
        #expect(unbounded.windowBytes > budget)
        var expected: [Entry] = []
        _ = unbounded.next(.max) {
            expected.append(Entry(key: Array($0.key), position: $0.position, payload: Array($0.payload)))
        }
        #expect(expected.count == count)

        let bounded = try SortedRuns.bounded(runs, parts: parts)
        #expect(bounded.spans.count <= SortedRuns.fanIn(budget: budget, parts: parts))
        #expect(bounded.spans.count > 1)
        #expect(bounded.count == runs.count)
        let whole = SortedRuns.Merge(bounded)
        #expect(whole.windowBytes <= budget)
        var merged: [Entry] = []
        _ = whole.next(.max) {
            merged.append(Entry(key: Array($0.key), position: $0.position, payload: Array($0.payload)))
        }
        #expect(merged == expected)

        let cut = try SortedRuns.Merge.parts(runs, count: parts)
        #expect(cut.count == parts)
        let windows = cut.reduce(0) { $0 + $1.windowBytes }
        #expect(windows <= budget, "\(cut.count) parts hold \(windows) bytes of windows")
        var inParts: [Entry] = []
        for part in cut {
            _ = part.next(.max) {
                inParts.append(Entry(key: Array($0.key), position: $0.position, payload: Array($0.payload)))
            }
        }
        #expect(inParts == expected)
    }

    /// Runs within the bound are left as they are (no pass, nothing written).
    @Test func fewRunsAreNotMergedAgain() throws {
        var runs = SortedRuns.Runs(file: try SpillFile(folder: NSTemporaryDirectory()), windowBudget: 1 << 20)
        var pending = SortedRuns.Pending(base: 0)
        for index in 0..<64 {
            var table = KeyTable()
            table.append([UInt8(index % 7)], present: true)
            pending.add(table, [1, 2, 3], [3])
            if index % 4 == 3 { try pending.flush(to: &runs, threads: Threads(1)) }
        }
        #expect(runs.spans.count == 16)
        let bounded = try SortedRuns.bounded(runs, parts: 4)
        #expect(bounded.spans.count == 16)
        #expect(bounded.spans.map(\.offset) == runs.spans.map(\.offset))
    }

    /// Keys that differ only past their first 8 bytes, or past their first 16, or by a zero
    /// byte or a shorter key where another goes on, spread over 21 runs: the merge compares
    /// the runs' heads by their first 16 bytes before the rest (`SortedRuns.Head`), and hands
    /// every entry over in key order, ties in position order.
    @Test func runsOfKeysSharingLongPrefixesMergeInKeyOrder() throws {
        var generator = SplitMix64(state: 11)
        var keys = KeyTableSortTests.randomKeys(12_000, using: &generator)
        let sixteen = Array("san jose de las ".utf8)
        let alphabet: [UInt8] = [0x00, 0x01, 0x61, 0xFF]
        for _ in 0..<8_000 {
            var key = Array(sixteen[..<Int.random(in: 12...16, using: &generator)])
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                key.append(alphabet.randomElement(using: &generator)!)
            }
            keys.append(key)
        }
        keys.shuffle(using: &generator)
        var runs = SortedRuns.Runs(file: try SpillFile(folder: NSTemporaryDirectory()))
        var pending = SortedRuns.Pending(base: 0)
        for (index, key) in keys.enumerated() {
            var table = KeyTable()
            table.append(key, present: true)
            pending.add(table, [UInt8(index % 251)], [1])
            if index % 997 == 996 { try pending.flush(to: &runs, threads: Threads(1)) }
        }
        try pending.flush(to: &runs, threads: Threads(1))
        #expect(runs.spans.count == 21)
        var merged: [Entry] = []
        try SortedRuns.merge(runs) { entry in
            merged.append(Entry(key: Array(entry.key), position: entry.position, payload: Array(entry.payload)))
        }
        let expected = keys.indices
            .sorted { a, b in keys[a] != keys[b] ? keys[a].lexicographicallyPrecedes(keys[b]) : a < b }
            .map { Entry(key: keys[$0], position: $0, payload: [UInt8($0 % 251)]) }
        #expect(merged.count == expected.count)
        let differs = expected.indices.first { $0 >= merged.count || merged[$0] != expected[$0] }
        #expect(differs == nil, "the merged entries differ from entry \(differs ?? -1)")
    }
}
