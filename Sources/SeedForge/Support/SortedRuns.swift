import Foundation
import HeapModule

/// Sorting a collection larger than the memory limit: each batch of the spilled store is
/// sorted in memory (`KeyTable`) and written to disk as a sorted run of (key, input
/// position, record); the runs are then merged with a heap holding one entry per run, and
/// the merged records go back into the store, which spills them again as they come.
/// Ties go by input position, exactly as the in-memory sort, so the order is the same
/// with or without a limit, and for any thread count.
enum SortedRuns {
    static func sort(
        _ store: RecordStore, space: SpillSpace, threads: Threads, key appendKey: (Record, inout ByteKey) -> Void
    ) throws {
        let file = try space.newFile()
        let codec = space.codec()
        var runs: [(offset: Int, length: Int)] = []
        var base = 0
        try store.forEachBatch { slice in
            let records = Array(slice)
            let table = KeyTable.build(count: records.count, threads: threads) { index, key in
                appendKey(records[index], &key)
                return true
            }
            let order = table.sortedPositions(threads: threads)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(records.count * 96)
            var entry: [UInt8] = []
            for position in order {
                entry.removeAll(keepingCapacity: true)
                let key = table.bytes[table.starts[position]..<table.starts[position + 1]]
                RecordCodec.appendVarint(UInt64(key.count), to: &entry)
                entry += key
                RecordCodec.appendVarint(UInt64(base + position), to: &entry)
                codec.encode(records[position], into: &entry)
                withUnsafeBytes(of: UInt32(entry.count).littleEndian) { bytes += $0 }
                bytes += entry
            }
            runs.append((try file.append(bytes), bytes.count))
            base += records.count
        }
        store.replace(with: [])
        var cursors = runs.map { RunCursor(file: file, offset: $0.offset, length: $0.length) }
        var heap = Heap<Head>()
        for index in cursors.indices {
            if let head = cursors[index].next(run: index, codec: codec, width: store.width) { heap.insert(head) }
        }
        while let head = heap.popMin() {
            store.append(head.record)
            if let next = cursors[head.run].next(run: head.run, codec: codec, width: store.width) { heap.insert(next) }
        }
        try space.check()
    }

    /// The smallest unread entry of one run.
    struct Head: Comparable {
        let key: [UInt8]
        let position: Int
        let run: Int
        let record: Record

        static func < (a: Head, b: Head) -> Bool {
            let order = compare(a.key, b.key)
            return order != 0 ? order < 0 : a.position < b.position
        }

        static func == (a: Head, b: Head) -> Bool { a.position == b.position }

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

        mutating func next(run: Int, codec: RecordCodec, width: Int) -> Head? {
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
                return Head(key: key, position: inputPosition, run: run, record: codec.decode(&reader, width: width))
            }
        }
    }
}
