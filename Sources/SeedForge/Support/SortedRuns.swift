import Foundation
import HeapModule

/// Sorting past the memory limit: entries (a key, an input position, a payload) are
/// written to disk as sorted runs, several batches of records at a time, and the runs are
/// merged by a heap (swift-collections `Heap`) holding one head per run. Ties go by input
/// position, exactly as `KeyTable.sortedPositions`, so the order is the same with or
/// without a limit, and for any thread count.
///
/// `sort` orders a spilled collection (the payload is the record); `dedupe` merges keys
/// alone (the payload is the keep-by key) to find duplicates without holding every key.
enum SortedRuns {
    /// One entry of a run as the merge hands it over: its key bytes, the record's input
    /// position, and what goes with it. The bytes are read where they lie in the run's
    /// window, valid only during the call.
    struct Entry {
        let key: UnsafeBufferPointer<UInt8>
        let position: Int
        let payload: UnsafeBufferPointer<UInt8>
    }

    /// Sorts a spilled store by `appendKey`, which reads only the fields `reading` lists,
    /// back into the same store. The records move as the bytes they were spilled as (a
    /// record is decoded only as far as its key needs): each run entry carries its
    /// record's bytes, and the merge writes them as the store's new batches, so the sorted
    /// collection ends on disk, whole, for the steps and outputs after it to stream.
    static func sort(
        _ store: RecordStore, space: SpillSpace, threads: Threads, reading: [FieldID],
        key appendKey: (Record, inout ByteKey) -> Void
    ) throws {
        let runs = try write(store, space: space, threads: threads, reading: reading, carryRecord: true) {
            record, key, _ in
            appendKey(record, &key)
            return true
        }
        store.replace(with: [])
        let file = try space.newFile()
        var batch: [UInt8] = []
        var count = 0
        try merge(runs) { entry in
            batch.append(contentsOf: entry.payload)
            count += 1
            if count == space.batchRecords {
                try store.appendEncoded(batch, count: count, to: file)
                batch.removeAll(keepingCapacity: true)
                count = 0
            }
        }
        try store.appendEncoded(batch, count: count, to: file)
        try space.check()
    }

    /// Runs on disk: where each starts in the file and how many bytes it has.
    struct Runs {
        let file: SpillFile
        var spans: [(offset: Int, length: Int)] = []
    }

    /// Writes sorted runs of the store's records: `make(record, &key, &payload)` writes
    /// a record's key and appends its payload, or returns false (and appends nothing) to
    /// leave the record out. The record is decoded only as far as the fields `reading`
    /// lists (the others are null); with `carryRecord`, its spilled bytes follow the
    /// payload. A run holds the entries of as many batches as fit in a sixteenth of the
    /// memory limit (at least one batch), so that few runs are merged. The store is left
    /// with every record on disk.
    static func write(
        _ store: RecordStore, space: SpillSpace, threads: Threads, reading: [FieldID], carryRecord: Bool = false,
        _ make: (Record, inout ByteKey, inout [UInt8]) -> Bool
    ) throws -> Runs {
        // The records still in memory go to disk first (`forEachEncodedBatch`): the runs
        // being gathered take the memory they held, instead of adding to it.
        let codec = space.codec()
        var read = [Bool](repeating: false, count: store.width)
        for field in reading where field.index < read.count { read[field.index] = true }
        var runs = Runs(file: try space.newFile())
        let runBytes = space.limit / 16
        var pending = Pending(base: 0)
        try store.forEachEncodedBatch { bytes, count, _ in
            let starts = RecordCodec.starts(bytes, count: count)
            // Keys in one table, payloads in one buffer: no allocation per record.
            let pieces = Parallel.chunks(count, threads: threads, minimumChunk: 4_096) { range in
                var key = ByteKey()
                var keys = KeyTable()
                keys.reserve(range.count)
                var payloads: [UInt8] = []
                if carryRecord { payloads.reserveCapacity(starts[range.upperBound] - starts[range.lowerBound]) }
                var ends: [Int] = []
                ends.reserveCapacity(range.count)
                for index in range {
                    key.removeAll()
                    var reader = RecordCodec.Reader(bytes, at: starts[index])
                    let record = codec.decode(&reader, width: store.width, reading: read)
                    let has = make(record, &key, &payloads)
                    if has, carryRecord {
                        payloads.append(
                            contentsOf: UnsafeBufferPointer(rebasing: bytes[starts[index]..<starts[index + 1]]))
                    }
                    keys.append(has ? key.bytes : [], present: has)
                    ends.append(payloads.count)
                }
                return (keys, payloads, ends)
            }
            for (keys, payloads, ends) in pieces { pending.add(keys, payloads, ends) }
            if pending.bytes >= runBytes { try pending.flush(to: &runs, threads: threads) }
        }
        try pending.flush(to: &runs, threads: threads)
        return runs
    }

    /// The entries of the run being gathered: keys in one table, payloads in the pieces
    /// they were made in.
    struct Pending {
        /// The input position of the first entry.
        var base: Int
        var table = KeyTable()
        var payloads: [[UInt8]] = []
        /// Each piece's payload ends, and the number of its first entry.
        var ends: [[Int]] = []
        var firstOfPiece: [Int] = []
        var pieceOf: [Int32] = []
        /// Bytes held: keys, payloads and about 40 bytes of bookkeeping an entry.
        var bytes = 0

        mutating func add(_ keys: KeyTable, _ piecePayloads: [UInt8], _ pieceEnds: [Int]) {
            firstOfPiece.append(table.count)
            pieceOf += repeatElement(Int32(payloads.count), count: pieceEnds.count)
            table.append(contentsOf: keys)
            payloads.append(piecePayloads)
            ends.append(pieceEnds)
            bytes += keys.bytes.count + piecePayloads.count + 40 * pieceEnds.count
        }

        /// Sorts the entries gathered and appends them to the runs as one run (written a
        /// few megabytes at a time), then starts over after them.
        mutating func flush(to runs: inout Runs, threads: Threads) throws {
            guard table.count > 0 else { return }
            var start: Int?
            var length = 0
            var bytes: [UInt8] = []
            let chunk = 4 << 20
            bytes.reserveCapacity(chunk + 4_096)
            var entry: [UInt8] = []
            for position in table.sortedPositions(threads: threads) where table.present[position] {
                entry.removeAll(keepingCapacity: true)
                let key = table.bytes[table.starts[position]..<table.starts[position + 1]]
                RecordCodec.appendVarint(UInt64(key.count), to: &entry)
                entry += key
                RecordCodec.appendVarint(UInt64(base + position), to: &entry)
                let piece = Int(pieceOf[position])
                let local = position - firstOfPiece[piece]
                let from = local == 0 ? 0 : ends[piece][local - 1]
                entry += payloads[piece][from..<ends[piece][local]]
                withUnsafeBytes(of: UInt32(entry.count).littleEndian) { bytes += $0 }
                bytes += entry
                if bytes.count >= chunk {
                    let offset = try runs.file.append(bytes)
                    start = start ?? offset
                    length += bytes.count
                    bytes.removeAll(keepingCapacity: true)
                }
            }
            if !bytes.isEmpty {
                let offset = try runs.file.append(bytes)
                start = start ?? offset
                length += bytes.count
            }
            // The run file is written only here: a run's appends lie one after the other.
            if let start { runs.spans.append((start, length)) }
            self = Pending(base: base + table.count)
        }
    }

    /// Calls `body` with every entry of the runs in key order, ties in position order.
    /// The heap holds one small head per run; entries are compared where they lie in
    /// their runs' windows, and the run whose entry was taken moves on in place.
    static func merge(_ runs: Runs, _ body: (Entry) throws -> Void) throws {
        let readers = runs.spans.map { RunReader(file: runs.file, offset: $0.offset, length: $0.length) }
        // The heads do not keep their readers alive: the list does, to the merge's end
        // (an optimised build may otherwise free it after its last use).
        try withExtendedLifetime(readers) {
            var heap = Heap(readers.filter { $0.advance() }.map(Head.init))
            while let head = heap.min {
                try body(head.reader.entry)
                if head.reader.advance() {
                    heap.replaceMin(with: Head(head.reader))
                } else {
                    _ = heap.popMin()
                }
            }
        }
    }

    /// A run in the heap: its reader (kept alive by the merge's list of readers, so the
    /// heap does no reference counting) and its current key's prefix, so most
    /// comparisons need not look further.
    struct Head: Comparable {
        unowned(unsafe) let reader: RunReader
        let prefix: UInt64

        init(_ reader: RunReader) {
            self.reader = reader
            prefix = reader.prefix
        }

        static func < (a: Head, b: Head) -> Bool {
            a.prefix != b.prefix ? a.prefix < b.prefix : a.reader.precedes(b.reader)
        }

        static func == (a: Head, b: Head) -> Bool { a.reader === b.reader }
    }

    /// Reads one sorted run from its file a window at a time, and holds where its
    /// current entry lies in the window.
    final class RunReader {
        let file: SpillFile
        private var nextOffset: Int
        private let end: Int
        private var window: UnsafeMutablePointer<UInt8>
        private var capacity = 256 << 10
        /// Bytes read into the window, and the first not yet taken.
        private var filled = 0
        private var cursor = 0
        private var keyStart = 0
        private var keyCount = 0
        private var payloadStart = 0
        private var payloadEnd = 0
        private(set) var position = 0
        /// The key's first eight bytes, big-endian, zero-padded: most comparisons end here.
        private(set) var prefix: UInt64 = 0

        init(file: SpillFile, offset: Int, length: Int) {
            self.file = file
            nextOffset = offset
            end = offset + length
            window = .allocate(capacity: capacity)
        }

        deinit { window.deallocate() }

        var key: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: window + keyStart, count: keyCount) }

        var entry: Entry {
            Entry(
                key: key, position: position,
                payload: UnsafeBufferPointer(start: window + payloadStart, count: payloadEnd - payloadStart))
        }

        /// Whether this run's entry comes before the other's: byte order of the keys,
        /// shorter first on a tie (the order of `KeyTable`), then input position.
        @inline(__always) func precedes(_ other: RunReader) -> Bool {
            if prefix != other.prefix { return prefix < other.prefix }
            let common = min(keyCount, other.keyCount)
            let order = common == 0 ? 0 : memcmp(window + keyStart, other.window + other.keyStart, common)
            if order != 0 { return order < 0 }
            if keyCount != other.keyCount { return keyCount < other.keyCount }
            return position < other.position
        }

        /// Makes `count` unread bytes available in the window (the unread ones move to
        /// its start).
        private func ensure(_ count: Int) {
            let kept = filled - cursor
            guard kept < count else { return }
            if count > capacity {
                let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 2 * capacity))
                larger.update(from: window + cursor, count: kept)
                window.deallocate()
                window = larger
                capacity = max(count, 2 * capacity)
            } else if kept > 0 {
                memmove(window, window + cursor, kept)
            }
            let wanted = min(end - nextOffset, capacity - kept)
            file.read(at: nextOffset, count: wanted, into: window + kept)
            nextOffset += wanted
            filled = kept + wanted
            cursor = 0
        }

        /// Moves to the run's next entry; false at its end.
        func advance() -> Bool {
            guard nextOffset < end || cursor < filled else { return false }
            ensure(4)
            var length = 0
            for shift in 0..<4 { length |= Int(window[cursor + shift]) << (8 * shift) }
            cursor += 4
            ensure(length)
            let start = cursor
            cursor += length
            var reader = RecordCodec.Reader(UnsafeBufferPointer(start: window + start, count: length))
            keyCount = Int(reader.varint())
            keyStart = start + reader.position
            reader.position += keyCount
            position = Int(reader.varint())
            payloadStart = start + reader.position
            payloadEnd = start + length
            prefix = KeyTable.prefix(of: key)
            return true
        }
    }
}
