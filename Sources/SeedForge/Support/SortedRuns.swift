import Foundation
import HeapModule

/// Sorting past the memory limit: entries (a key, an input position, a payload) are
/// written to disk as sorted runs, a batch of records at a time, and the runs are merged
/// with a heap holding one entry per run. Ties go by input position, exactly as
/// `KeyTable.sortedPositions`, so the order is the same with or without a limit, and for
/// any thread count.
///
/// `sort` orders a spilled collection (the payload is the record); `dedupe` merges keys
/// alone (the payload is the keep-by key) to find duplicates without holding every key.
enum SortedRuns {
    /// One entry of a run: its key bytes, the record's input position, and what goes with it.
    struct Entry {
        let key: [UInt8]
        let position: Int
        let payload: [UInt8]
    }

    /// Sorts a spilled store by `appendKey`, back into the same store (which spills the
    /// sorted records again as they come).
    static func sort(
        _ store: RecordStore, space: SpillSpace, threads: Threads, key appendKey: (Record, inout ByteKey) -> Void
    ) throws {
        let codec = space.codec()
        let runs = try write(store, space: space, threads: threads) { record, key, payload in
            appendKey(record, &key)
            codec.encode(record, into: &payload)
            return true
        }
        store.replace(with: [])
        try merge(runs) { entry in
            entry.payload.withUnsafeBufferPointer { buffer in
                var reader = RecordCodec.Reader(buffer)
                store.append(codec.decode(&reader, width: store.width))
            }
        }
        try space.check()
    }

    /// Runs on disk: where each starts in the file and how many bytes it has.
    struct Runs {
        let file: SpillFile
        var spans: [(offset: Int, length: Int)] = []
    }

    /// Writes one sorted run per batch of the store: `make(record, &key, &payload)` writes
    /// a record's key and appends its payload, or returns false (and appends nothing) to
    /// leave the record out.
    static func write(
        _ store: RecordStore, space: SpillSpace, threads: Threads,
        _ make: (Record, inout ByteKey, inout [UInt8]) -> Bool
    ) throws -> Runs {
        var runs = Runs(file: try space.newFile())
        var base = 0
        try store.forEachBatch { batch in
            // Keys in one table, payloads in one buffer: no allocation per record.
            let pieces = Parallel.chunks(batch.count, threads: threads, minimumChunk: 4_096) { range in
                var key = ByteKey()
                var keys = KeyTable()
                keys.reserve(range.count)
                var payloads: [UInt8] = []
                var ends: [Int] = []
                ends.reserveCapacity(range.count)
                for index in range {
                    key.removeAll()
                    let has = make(batch[batch.startIndex + index], &key, &payloads)
                    keys.append(has ? key.bytes : [], present: has)
                    ends.append(payloads.count)
                }
                return (keys, payloads, ends)
            }
            var table = KeyTable()
            var payloads: [[UInt8]] = []
            var ends: [[Int]] = []
            var pieceOf: [Int] = []
            for (number, (keys, bytes, pieceEnds)) in pieces.enumerated() {
                table.append(contentsOf: keys)
                payloads.append(bytes)
                ends.append(pieceEnds)
                pieceOf += repeatElement(number, count: pieceEnds.count)
            }
            var firstOfPiece: [Int] = []
            var total = 0
            for pieceEnds in ends {
                firstOfPiece.append(total)
                total += pieceEnds.count
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(batch.count * 96)
            var entry: [UInt8] = []
            for position in table.sortedPositions(threads: threads) where table.present[position] {
                entry.removeAll(keepingCapacity: true)
                let key = table.bytes[table.starts[position]..<table.starts[position + 1]]
                RecordCodec.appendVarint(UInt64(key.count), to: &entry)
                entry += key
                RecordCodec.appendVarint(UInt64(base + position), to: &entry)
                let piece = pieceOf[position]
                let local = position - firstOfPiece[piece]
                let start = local == 0 ? 0 : ends[piece][local - 1]
                entry += payloads[piece][start..<ends[piece][local]]
                withUnsafeBytes(of: UInt32(entry.count).littleEndian) { bytes += $0 }
                bytes += entry
            }
            if !bytes.isEmpty { runs.spans.append((try runs.file.append(bytes), bytes.count)) }
            base += batch.count
        }
        return runs
    }

    /// Calls `body` with every entry of the runs in key order, ties in position order.
    static func merge(_ runs: Runs, _ body: (Entry) throws -> Void) throws {
        var cursors = runs.spans.map { RunCursor(file: runs.file, offset: $0.offset, length: $0.length) }
        var heap = Heap<Head>()
        for index in cursors.indices {
            if let entry = cursors[index].next() { heap.insert(Head(entry, run: index)) }
        }
        while let head = heap.popMin() {
            try body(head.entry)
            if let next = cursors[head.run].next() { heap.insert(Head(next, run: head.run)) }
        }
    }

    /// The smallest unread entry of one run.
    struct Head: Comparable {
        let entry: Entry
        let run: Int
        /// The key's first eight bytes, big-endian, zero-padded: most comparisons end here.
        let prefix: UInt64

        init(_ entry: Entry, run: Int) {
            self.entry = entry
            self.run = run
            prefix = KeyTable.prefix(of: entry.key)
        }

        static func < (a: Head, b: Head) -> Bool {
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            let order = compare(a.entry.key, b.entry.key)
            return order != 0 ? order < 0 : a.entry.position < b.entry.position
        }

        static func == (a: Head, b: Head) -> Bool { a.entry.position == b.entry.position }

        /// Byte order, shorter first on a tie: the order of `KeyTable`.
        static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
            let common = min(a.count, b.count)
            let order = a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in common == 0 ? 0 : memcmp(pa.baseAddress!, pb.baseAddress!, common) }
            }
            return order != 0 ? Int(order) : a.count - b.count
        }
    }

    /// Reads one sorted run from its file a window at a time.
    struct RunCursor {
        let file: SpillFile
        var nextOffset: Int
        let end: Int
        var window: [UInt8] = []
        var position = 0
        static let windowBytes = 256 << 10

        init(file: SpillFile, offset: Int, length: Int) {
            self.file = file
            nextOffset = offset
            end = offset + length
        }

        /// Makes `count` unread bytes available in the window.
        mutating func ensure(_ count: Int) {
            guard window.count - position < count else { return }
            let kept = Array(window[position...])
            let wanted = min(end - nextOffset, max(count - kept.count, Self.windowBytes))
            window = kept + file.read(at: nextOffset, count: wanted)
            nextOffset += wanted
            position = 0
        }

        mutating func next() -> Entry? {
            guard nextOffset < end || position < window.count else { return nil }
            ensure(4)
            var length = 0
            for shift in 0..<4 { length |= Int(window[position + shift]) << (8 * shift) }
            position += 4
            ensure(length)
            let start = position
            position += length
            return window.withUnsafeBufferPointer { buffer in
                var reader = RecordCodec.Reader(UnsafeBufferPointer(rebasing: buffer[start..<start + length]))
                let keyLength = Int(reader.varint())
                let key = Array(reader.bytes[reader.position..<reader.position + keyLength])
                reader.position += keyLength
                let inputPosition = Int(reader.varint())
                return Entry(key: key, position: inputPosition, payload: Array(reader.bytes[reader.position...]))
            }
        }
    }
}
