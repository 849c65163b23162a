import CSeedForgeSupport
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
    /// back into the same store (see `sort(_:space:threads:encodedKey:)`).
    static func sort(
        _ store: RecordStore, space: SpillSpace, threads: Threads, reading: [FieldID],
        key appendKey: (Record, inout ByteKey) -> Void
    ) throws {
        let codec = space.codec()
        let read = fieldMarks(reading, width: store.width)
        try sort(store, space: space, threads: threads) { bytes, key in
            var reader = RecordCodec.Reader(bytes)
            appendKey(codec.decode(&reader, width: store.width, reading: read), &key)
        }
    }

    /// Sorts a spilled store by `appendKey`, which writes a record's key from its spilled
    /// bytes (one record's, as `RecordCodec` wrote it), back into the same store. The
    /// records move as the bytes they were spilled as: each run entry carries its record's
    /// bytes, and the store keeps the runs (`RecordStore.setSortedRuns`): the steps and
    /// outputs after it merge them as they read, so the merge's result is never written to
    /// disk and read back.
    static func sort(
        _ store: RecordStore, space: SpillSpace, threads: Threads,
        encodedKey appendKey: (UnsafeBufferPointer<UInt8>, inout ByteKey) -> Void
    ) throws {
        let gathering = Gathering(space: space, threads: threads)
        // The store's batches are read here for the last time (it is replaced by the
        // runs), so their pages are freed as they are read, for the runs' writes to reuse.
        try store.forEachEncodedBatch(releasing: true) { bytes, count, _ in
            let starts = RecordCodec.starts(bytes, count: count)
            try gathering.add(count: count, carrying: bytes, starts: starts) { index, key in
                appendKey(UnsafeBufferPointer(rebasing: bytes[starts[index]..<starts[index + 1]]), &key)
                return true
            }
        }
        let runs = try gathering.finish()
        store.replace(with: [])
        // The runs are merged by one reader at a time (`RecordStore`): one part.
        store.setSortedRuns(try bounded(runs, parts: 1))
        try space.check()
    }

    /// Per field of a record `width` wide, whether `reading` lists it.
    static func fieldMarks(_ reading: [FieldID], width: Int) -> [Bool] {
        var marks = [Bool](repeating: false, count: width)
        for field in reading where field.index < marks.count { marks[field.index] = true }
        return marks
    }

    /// Runs on disk: where each starts in the file and how many bytes it has.
    struct Runs {
        let file: SpillFile
        var spans: [(offset: Int, length: Int)] = []
        /// Per run, every `markEvery`th entry's key and where the entry starts in the file:
        /// a merge of a range of keys starts each run near its first entry in the range
        /// (`Merge.parts`).
        var marks: [[Mark]] = []
        /// Entries in all the runs.
        var count = 0
        /// What the read windows of a merge of every run may hold together (an eighth of
        /// the memory limit when gathered past it; unbounded in tests that make runs
        /// themselves). Each run is read through a window of 256 KiB, or less when the runs
        /// are many: 2 GB of records under a 64 MiB limit make about 500 runs, 128 MiB of
        /// windows at 256 KiB each (twice that when the merge is cut into two parts). Past
        /// `fanIn` runs, they are merged into fewer first (`bounded`).
        var windowBudget = Int.max
        /// Input positions no longer in the collection (dedupe's losers, when the runs were
        /// gathered as ingest spilled the records: `RecordStore.drop`): every merge of the
        /// runs leaves their entries out.
        var leftOut = PositionSet()
    }

    /// An entry of a run that a merge of part of the keys can start from.
    struct Mark {
        let offset: Int
        let key: [UInt8]
    }

    /// Entries between two marks of a run: at 20M keys about 5,000 marks, and a part's
    /// reader of a run skips at most this many entries to reach its first key.
    static let markEvery = 4_096

    /// The smallest window a reader of a merge gets from the budget (a page: a smaller
    /// one would read the run a few entries a system call).
    static let minimumWindow = 4 << 10

    /// Runs a merge pass may always take together, however small the budget: under a
    /// 4 KiB limit (a budget of 512 bytes) no window fits it, and a merge of 2 at a time
    /// would read 240k cities' keys 16 times over; 16 at a time reads them 4 times and
    /// holds at most 16 windows of 4 KiB a part.
    static let minimumFanIn = 16

    /// The most runs `parts` merges side by side read within `budget`, each run through a
    /// window of at least `minimumWindow` in each part.
    static func fanIn(budget: Int, parts: Int) -> Int {
        max(minimumFanIn, budget / max(1, parts) / minimumWindow)
    }

    /// The runs, with as few of them merged into longer runs as it takes to leave at most
    /// `fanIn(windowBudget, parts)`: without it, each of `parts` merges side by side opens a
    /// reader on every run, and what they hold grows as runs x parts (the shipped cities
    /// under a 4 KiB limit, 60k runs of a few keys, held 283 MB at `--threads` 8).
    ///
    /// A pass merges the first runs of the list, as many as the budget lets one merge read
    /// (or as few as bring the list down to the bound), into one run appended to the same
    /// file, and puts it at the end of the list; it goes on until the list is short enough,
    /// so each entry is written about log(runs) / log(fan-in) times. A merged run is written
    /// entry by entry as it was (key, then input position), and any merge of runs hands
    /// over entries in key order, ties in position order: a merge of the merged runs gives
    /// the same sequence, and so the same bytes, whatever the limit or the thread count.
    /// The runs merged stay in the file, unread (it is unlinked: the space is freed with
    /// it when the collection lets it go).
    static func bounded(_ runs: Runs, parts: Int) throws -> Runs {
        let bound = fanIn(budget: runs.windowBudget, parts: parts)
        guard runs.spans.count > bound else { return runs }
        // What a pass writes at a time, out of the budget: the rest is its windows'.
        let chunk = min(256 << 10, max(minimumWindow, runs.windowBudget / 8))
        let passBudget = max(1, runs.windowBudget - chunk)
        let widest = max(bound, fanIn(budget: passBudget, parts: 1))
        var spans = runs.spans
        var marks = runs.marks
        // The runs before `first` are merged into later ones (a queue: no copy a pass).
        var first = 0
        while spans.count - first > bound {
            let taken = min(widest, spans.count - first - bound + 1)
            let group = Runs(
                file: runs.file, spans: Array(spans[first..<(first + taken)]),
                marks: Array(marks[first..<(first + taken)]), windowBudget: passBudget, leftOut: runs.leftOut)
            // Every entry of the group left out (dedupe's losers, at a tiny limit): no run.
            if let merged = try mergeGroup(group, chunk: chunk) {
                spans.append(merged.span)
                marks.append(merged.marks)
            }
            // The merged runs' marks (a key every 4,096 entries) are let go at once.
            for run in first..<(first + taken) { marks[run] = [] }
            first += taken
        }
        var bounded = runs
        bounded.spans = Array(spans[first...])
        bounded.marks = Array(marks[first...])
        return bounded
    }

    /// Merges the runs of `group` into one run appended to their file, written `chunk`
    /// bytes at a time: where it lies and its marks; nil when every entry is left out.
    private static func mergeGroup(
        _ group: Runs, chunk: Int
    ) throws -> (span: (offset: Int, length: Int), marks: [Mark])? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chunk + 4_096)
        var start: Int?
        var length = 0
        var entries = 0
        // Offsets from the run's start: where it starts in the file is known once its
        // first bytes are written.
        var marks: [Mark] = []
        func write() throws {
            let offset = try group.file.append(bytes)
            start = start ?? offset
            length += bytes.count
            bytes.removeAll(keepingCapacity: true)
        }
        try merge(group) { entry in
            if entries % markEvery == 0 { marks.append(Mark(offset: length + bytes.count, key: Array(entry.key))) }
            entries += 1
            appendEntry(key: entry.key, position: entry.position, payload: entry.payload, to: &bytes)
            if bytes.count >= chunk { try write() }
        }
        if !bytes.isEmpty { try write() }
        // The group's runs are contiguous appends of this file, so the chunks are too.
        guard let offset = start else { return nil }
        return ((offset, length), marks.map { Mark(offset: offset + $0.offset, key: $0.key) })
    }

    /// Appends an entry as a run holds it: its length as four bytes, then its key's length
    /// (varint), the key, its input position (varint) and its payload.
    @inline(__always)
    static func appendEntry(
        key: UnsafeBufferPointer<UInt8>, position: Int, payload: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]
    ) {
        let length =
            RecordCodec.varintLength(UInt64(key.count)) + key.count + RecordCodec.varintLength(UInt64(position))
            + payload.count
        withUnsafeBytes(of: UInt32(length).littleEndian) { bytes.append(contentsOf: $0) }
        RecordCodec.appendVarint(UInt64(key.count), to: &bytes)
        bytes.append(contentsOf: key)
        RecordCodec.appendVarint(UInt64(position), to: &bytes)
        bytes.append(contentsOf: payload)
    }

    /// Writes sorted runs of the store's records: `make(record, &key, &payload)` writes
    /// a record's key and appends its payload, or returns false (and appends nothing) to
    /// leave the record out. The record is decoded only as far as the fields `reading`
    /// lists (the others are null). A run holds the entries of as many batches as fit in a
    /// sixteenth of the memory limit (at least one batch), so that few runs are merged.
    /// The store is left with every record on disk.
    static func write(
        _ store: RecordStore, space: SpillSpace, threads: Threads, reading: [FieldID],
        _ make: (Record, inout ByteKey, inout [UInt8]) -> Bool
    ) throws -> Runs {
        // The records still in memory go to disk first (`forEachEncodedBatch`): the runs
        // being gathered take the memory they held, instead of adding to it.
        let codec = space.codec()
        // A constant for the closures below: a captured `var` was checked for exclusive
        // access and its array retained and released for every record, from every thread.
        let read = fieldMarks(reading, width: store.width)
        let gathering = Gathering(space: space, threads: threads)
        try store.forEachEncodedBatch { bytes, count, _ in
            let starts = RecordCodec.starts(bytes, count: count)
            try gathering.add(count: count) { index, key, payloads in
                var reader = RecordCodec.Reader(bytes, at: starts[index])
                return make(codec.decode(&reader, width: store.width, reading: read), &key, &payloads)
            }
        }
        return try gathering.finish()
    }

    /// Sorted runs gathered a batch of entries at a time, in the collection's order (the
    /// first entry added is input position 0): `write` over a spilled store's batches, or
    /// a dedupe's keys made from the records ingest spills while they are still in memory
    /// (`RecordStore.spillKeys`), so that dedupe need not read the collection back for them.
    final class Gathering {
        let space: SpillSpace
        let threads: Threads
        private var runs: Runs?
        private var pending = Pending(base: 0)
        /// Entries added so far (with or without a key).
        private(set) var count = 0
        /// Bytes the entries not yet written as a run hold.
        var pendingBytes: Int { pending.heldBytes }

        init(space: SpillSpace, threads: Threads) {
            self.space = space
            self.threads = threads
        }

        /// Adds `count` entries, `entry(index, &key, &payloads)` making each (false: no
        /// key, and it appends nothing), on every core; `payloadRoom` is the payload bytes
        /// a range of them will take, when known. A run holds the entries of as many
        /// batches as fit in a sixteenth of the memory limit (at least one batch), so that
        /// few runs are merged.
        func add(
            count: Int, payloadRoom: (Range<Int>) -> Int = { _ in 0 },
            _ entry: (Int, inout ByteKey, inout [UInt8]) -> Bool
        ) throws {
            // Keys in one table, payloads in one buffer: no allocation per record.
            let pieces = Parallel.chunks(count, threads: threads, minimumChunk: 4_096) { range in
                var key = ByteKey()
                var keys = KeyTable()
                keys.reserve(range.count)
                var payloads: [UInt8] = []
                payloads.reserveCapacity(payloadRoom(range))
                var ends: [Int] = []
                ends.reserveCapacity(range.count)
                for index in range {
                    key.removeAll()
                    let has = entry(index, &key, &payloads)
                    keys.append(has ? key.bytes : [], present: has)
                    ends.append(payloads.count)
                }
                return (keys, payloads, ends)
            }
            for (keys, payloads, ends) in pieces { pending.add(keys, payloads, ends) }
            self.count += count
            if pending.bytes >= space.limit / 16 { try flush() }
        }

        /// Adds `count` entries whose payloads are consecutive records as spilled (`bytes`,
        /// record `index` from `starts[index]` to `starts[index + 1]`), `key(index, &key)`
        /// making each key (false: none) on every core. The bytes go into the run's buffer
        /// as one copy: copied record by record into each thread's piece and then the pieces
        /// into the buffer, on the calling thread, they were about a fifth of the sort's
        /// samples at 5M cities under 512 MiB (a record without a key keeps its bytes there
        /// unused: a run holds only the entries with a key).
        func add(
            count: Int, carrying bytes: UnsafeBufferPointer<UInt8>, starts: [Int], _ key: (Int, inout ByteKey) -> Bool
        ) throws {
            let pieces = Parallel.chunks(count, threads: threads, minimumChunk: 4_096) { range in
                var entry = ByteKey()
                var keys = KeyTable()
                keys.reserve(range.count)
                for index in range {
                    entry.removeAll()
                    let has = key(index, &entry)
                    keys.append(has ? entry.bytes : [], present: has)
                }
                return keys
            }
            for keys in pieces { pending.add(keys) }
            try take(payloads: bytes, starts: starts, count: count)
        }

        /// `add(count:carrying:starts:_:)` with the entries' keys made (every entry has one).
        func add(keys: KeyTable, carrying bytes: UnsafeBufferPointer<UInt8>, starts: [Int]) throws {
            pending.add(keys)
            try take(payloads: bytes, starts: starts, count: keys.count)
        }

        /// The payloads of the `count` entries whose keys were added last.
        private func take(payloads bytes: UnsafeBufferPointer<UInt8>, starts: [Int], count: Int) throws {
            pending.add(
                payloads: UnsafeBufferPointer(rebasing: bytes[starts[0]..<starts[count]]),
                ends: starts[1...count].lazy.map { $0 - starts[0] })
            self.count += count
            if pending.bytes >= space.limit / 16 { try flush() }
        }

        private func flush() throws {
            if runs == nil { runs = Runs(file: try space.newFile(), windowBudget: max(1, space.limit / 8)) }
            try pending.flush(to: &runs!, threads: threads)
        }

        /// The runs of every entry added.
        func finish() throws -> Runs {
            try flush()
            // The buffers kept for a next run go back now.
            pending = Pending(base: pending.base)
            return runs!
        }
    }

    /// The entries of the run being gathered: keys in one table, payloads one after another
    /// in entry order.
    struct Pending {
        /// The input position of the first entry.
        var base: Int
        var table = KeyTable()
        var payloads: [UInt8] = []
        /// Where each entry's payload ends in `payloads`.
        var ends: [Int] = []
        /// Bytes the entries take: keys, payloads and about 40 bytes of bookkeeping an
        /// entry. A run is written once they pass a share of the limit.
        var bytes = 0
        /// The most bytes a run held: the buffers are kept from one run to the next
        /// (`flush`), and the memory they hold is that much.
        private var peak = 0

        init(base: Int) { self.base = base }

        /// Bytes held: `bytes`, or the buffers as an earlier run filled them.
        var heldBytes: Int { max(bytes, peak) }

        mutating func add(_ keys: KeyTable, _ piecePayloads: [UInt8], _ pieceEnds: [Int]) {
            add(keys)
            piecePayloads.withUnsafeBufferPointer { add(payloads: $0, ends: pieceEnds) }
        }

        /// Adds entries' keys: their payloads follow (`add(payloads:ends:)`), as many.
        mutating func add(_ keys: KeyTable) {
            table.append(contentsOf: keys)
            bytes += keys.bytes.count
        }

        /// Adds the payloads of the entries whose keys were added last: `piecePayloads` one
        /// after another, each ending at its `pieceEnds` (from the first's start).
        mutating func add<Ends: Collection<Int>>(
            payloads piecePayloads: UnsafeBufferPointer<UInt8>, ends pieceEnds: Ends
        ) {
            let offset = payloads.count
            payloads.append(contentsOf: piecePayloads)
            ends.append(contentsOf: pieceEnds.lazy.map { $0 + offset })
            bytes += piecePayloads.count + 40 * pieceEnds.count
        }

        /// Entries serialized at a time (each group's pieces on every core, written in order
        /// before the next group): about 6 MiB for a city with its record bytes.
        static let groupEntries = 65_536

        /// Sorts the entries gathered and appends them to the runs as one run, then starts
        /// over after them. An entry is its key's length (varint), the key, its input
        /// position (varint) and its payload, behind its length as four bytes.
        ///
        /// Serializing is a gather: in sorted order each entry's key and payload lie
        /// anywhere in the run's buffers, so every copy began with a cache miss (a perf
        /// profile of the 5M reference job under 512 MiB gave the copies of this loop 4.9%
        /// of all samples, on one thread). The bytes of the entry 8 ahead are asked for
        /// while one is copied, and each group is cut into two pieces per core, serialized
        /// while the group before is written (`RenderAhead`).
        mutating func flush(to runs: inout Runs, threads: Threads) throws {
            guard table.count > 0 else { return }
            let present = table.present
            let order = table.sortedPositions(threads: threads).filter { present[$0] }
            var start: Int?
            var length = 0
            var marks: [Mark] = []
            let base = self.base
            // Bytes an entry takes on average, for each piece's room.
            let average = (table.bytes.count + payloads.count) / table.count + 24
            try table.bytes.withUnsafeBufferPointer { keys in
                try table.starts.withUnsafeBufferPointer { starts in
                    try payloads.withUnsafeBufferPointer { payloads in
                        try ends.withUnsafeBufferPointer { ends in
                            try order.withUnsafeBufferPointer { order in
                                // The pieces of a group are written in order while the next group is
                                // serialized: the write (the kernel's copy into the page cache) was a
                                // quarter of the sort's samples on the calling thread at 5M cities
                                // under 512 MiB, with the other core idle meanwhile.
                                func write(_ pieces: [(bytes: [UInt8], marks: [Mark])]) throws {
                                    for piece in pieces where !piece.bytes.isEmpty {
                                        let offset = try runs.file.append(piece.bytes)
                                        start = start ?? offset
                                        length += piece.bytes.count
                                        for mark in piece.marks {
                                            marks.append(Mark(offset: offset + mark.offset, key: mark.key))
                                        }
                                    }
                                }
                                var ahead = RenderAhead<(bytes: [UInt8], marks: [Mark])>(threads: threads)
                                var group = 0
                                while group < order.count {
                                    let end = min(group + Self.groupEntries, order.count)
                                    let first = group
                                    try ahead.batch(
                                        end - first,
                                        render: { range in
                                            Self.serialize(
                                                order[(first + range.lowerBound)..<(first + range.upperBound)],
                                                base: base, keys: keys, starts: starts, payloads: payloads, ends: ends,
                                                room: average * range.count)
                                        }, write: write)
                                    group = end
                                }
                                try ahead.finish(write: write)
                            }
                        }
                    }
                }
            }
            // The run file is written only here: a run's appends lie one after the other.
            if let start {
                runs.spans.append((start, length))
                runs.marks.append(marks)
            }
            runs.count += order.count
            // The next run reuses the buffers: made anew, each grew by doubling again (a copy
            // at each step) into memory the kernel had to fault in and zero, on the thread
            // that spills while the others waited (at 20M cities under 2 GiB, about 4% of
            // ingest's wall time).
            self.base = base + table.count
            peak = max(peak, bytes)
            table.removeAll(keepingCapacity: true)
            payloads.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            bytes = 0
        }

        /// The entries at `positions` (in this order), serialized one after another.
        static func serialize(
            _ positions: Slice<UnsafeBufferPointer<Int>>, base: Int, keys: UnsafeBufferPointer<UInt8>,
            starts: UnsafeBufferPointer<Int>, payloads: UnsafeBufferPointer<UInt8>, ends: UnsafeBufferPointer<Int>,
            room: Int
        ) -> (bytes: [UInt8], marks: [Mark]) {
            var bytes: [UInt8] = []
            var marks: [Mark] = []
            bytes.reserveCapacity(room)
            let distance = 8
            for index in positions.indices {
                if index + distance < positions.endIndex {
                    let ahead = positions[index + distance]
                    seedforge_prefetch(keys.baseAddress! + starts[ahead], 1)
                    seedforge_prefetch(payloads.baseAddress! + (ahead == 0 ? 0 : ends[ahead - 1]), 1)
                }
                if index + 2 * distance < positions.endIndex {
                    let further = positions[index + 2 * distance]
                    seedforge_prefetch(starts.baseAddress! + further, 16)
                    seedforge_prefetch(ends.baseAddress! + max(0, further - 1), 16)
                }
                let position = positions[index]
                let key = UnsafeBufferPointer(rebasing: keys[starts[position]..<starts[position + 1]])
                let payload = UnsafeBufferPointer(
                    rebasing: payloads[(position == 0 ? 0 : ends[position - 1])..<ends[position]])
                // `index` counts the run's entries (the slice keeps the indexes of `order`).
                if index % SortedRuns.markEvery == 0 { marks.append(Mark(offset: bytes.count, key: Array(key))) }
                SortedRuns.appendEntry(key: key, position: base + position, payload: payload, to: &bytes)
            }
            return (bytes, marks)
        }
    }

    /// Calls `body` with the entries of run number `run` whose input positions are in
    /// `positions`, the run read once from start to end (in key order, not position order):
    /// a few records picked by position from runs that hold every record (dedupe's
    /// duplicates and their winners, for its log, when the records were spilled as a sort's
    /// runs). Runs may be read so side by side.
    static func pick(
        _ positions: PositionSet, from runs: Runs, run: Int, _ body: (Entry) throws -> Void
    ) rethrows {
        guard !positions.isEmpty else { return }
        let span = runs.spans[run]
        let reader = RunReader(file: runs.file, offset: span.offset, length: span.length)
        while reader.advance() {
            if positions.contains(reader.position) { try body(reader.entry) }
        }
    }

    /// Calls `body` with every entry of the runs in key order, ties in position order.
    static func merge(_ runs: Runs, _ body: (Entry) throws -> Void) throws {
        let merge = Merge(runs)
        _ = try merge.next(.max, body)
    }

    /// The entries of sorted runs in key order, ties in position order, taken a number at
    /// a time (a reader of a sorted collection takes a batch at a time). The heap holds one
    /// small head per run; entries are compared where they lie in their runs' windows, and
    /// the run whose entry was taken moves on in place.
    final class Merge {
        /// The heads do not keep their readers alive: this list does, as long as the merge
        /// lives.
        private let readers: [RunReader]
        private var heap: Heap<Head>

        /// A merge of every entry. `releasing`: the runs' last read (nothing reads their
        /// bytes again), so each reader frees the pages it has read (`SpillFile.release`),
        /// for the writes of whoever takes the merged entries to reuse.
        convenience init(_ runs: Runs, releasing: Bool = false) {
            self.init(runs, keys: (nil, nil), windowBudget: runs.windowBudget, releasing: releasing)
        }

        /// A merge of the entries whose keys lie in `keys` (from its lower key, included, to
        /// its upper key, excluded; nil: no bound): each run is read from its last mark
        /// before the lower key, through a window of at most 256 KiB, its share of
        /// `windowBudget` (at least 4 KiB), and the bytes it has to read.
        init(_ runs: Runs, keys: (lower: [UInt8]?, upper: [UInt8]?), windowBudget: Int, releasing: Bool = false) {
            let share = max(SortedRuns.minimumWindow, windowBudget / max(1, runs.spans.count))
            readers = runs.spans.indices.map { run in
                let span = runs.spans[run]
                var offset = span.offset
                if let lower = keys.lower {
                    for mark in runs.marks[run] {
                        guard mark.key.lexicographicallyPrecedes(lower) else { break }
                        offset = mark.offset
                    }
                }
                return RunReader(
                    file: runs.file, offset: offset, length: span.offset + span.length - offset, windowSize: share,
                    upper: keys.upper, leftOut: runs.leftOut, releasing: releasing)
            }
            heap = Heap(
                readers.filter { reader in
                    guard reader.advance() else { return false }
                    guard let lower = keys.lower else { return true }
                    while reader.compare(to: lower) < 0 {
                        guard reader.advance() else { return false }
                    }
                    return true
                }.map(Head.init))
        }

        /// The runs' entries cut by key into up to `count` merges, one after another in key
        /// order, each holding about as many entries (by the runs' marks), a key's entries
        /// all in one: merged side by side, their entries are those of one merge of the runs,
        /// and where the cuts fall depends only on the runs (once `bounded` for `count`
        /// parts).
        ///
        /// `cut` makes each cut's key from a mark's (for a cut where the first parts of the
        /// keys change: the key's first bytes); it must keep their order.
        static func parts(
            _ runs: Runs, count: Int, cut: (UnsafeBufferPointer<UInt8>) -> [UInt8] = { Array($0) }
        ) throws -> [Merge] {
            // Each part reads every run: fewer runs first when they are many for the budget.
            let runs = try bounded(runs, parts: count)
            let keys = runs.marks.joined().map(\.key).sorted { $0.lexicographicallyPrecedes($1) }
            // Few marks: one merge (cutting it would save little).
            guard count > 1, keys.count >= 4 * count else { return [Merge(runs)] }
            // The parts are merged side by side: they share the windows' budget.
            var cuts: [[UInt8]] = []
            for part in 1..<count {
                let key = keys[keys.count * part / count].withUnsafeBufferPointer(cut)
                if cuts.last != key { cuts.append(key) }
            }
            return (0...cuts.count).map { part in
                Merge(
                    runs, keys: (part == 0 ? nil : cuts[part - 1], part == cuts.count ? nil : cuts[part]),
                    windowBudget: runs.windowBudget / (cuts.count + 1))
            }
        }

        /// The bytes its readers' windows hold.
        var windowBytes: Int { readers.reduce(0) { $0 + $1.windowCapacity } }

        /// Hands `body` the next entries, at most `limit`; returns how many (0: the runs
        /// are done).
        func next(_ limit: Int, _ body: (Entry) throws -> Void) rethrows -> Int {
            var taken = 0
            // The heap is worked on as a local and put back after: each use of the class's
            // stored property was checked for exclusive access at run time (`swift_beginAccess`
            // and its access set about a tenth of dedupe's samples in its merges at 5M
            // cities under 512 MiB).
            var heap = Heap<Head>()
            swap(&heap, &self.heap)
            defer { swap(&heap, &self.heap) }
            try withExtendedLifetime(readers) {
                while taken < limit, let head = heap.min {
                    try head.run._withUnsafeGuaranteedRef { reader in
                        try body(reader.entry)
                        if reader.advance() {
                            heap.replaceMin(with: Head(reader))
                        } else {
                            _ = heap.popMin()
                        }
                    }
                    taken += 1
                }
            }
            return taken
        }
    }

    /// A run in the heap: its reader (kept alive by the merge's list of readers, so the
    /// heap does no reference counting) and its current key's first 16 bytes, so most
    /// comparisons need not look further. With 8, many more went on to `memcmp` in a large
    /// dump: the heads of the runs lie close together in key order, where names share their
    /// first letters (of two names at most 19 apart in sorted order, 25% share their first 7
    /// letters in the 1M dump, 63% in the 5M dump; 13% their first 15 in the 5M dump). The
    /// reader is held unmanaged and lent for each use: an `unowned(unsafe)` reference was retained and released around each
    /// comparison that got past the prefixes (39 of the calling thread's 1,360 samples in
    /// the outputs of the 5M reference job under `--memory-limit 512MiB`).
    struct Head: Comparable {
        let run: Unmanaged<RunReader>
        let prefix: UInt64
        let prefix2: UInt64

        init(_ reader: RunReader) {
            run = .passUnretained(reader)
            prefix = reader.prefix
            prefix2 = reader.prefix2
        }

        static func < (a: Head, b: Head) -> Bool {
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            if a.prefix2 != b.prefix2 { return a.prefix2 < b.prefix2 }
            return a.run._withUnsafeGuaranteedRef { first in
                b.run._withUnsafeGuaranteedRef { second in first.precedes(second) }
            }
        }

        static func == (a: Head, b: Head) -> Bool { a.run.toOpaque() == b.run.toOpaque() }
    }

    /// Reads one sorted run from its file a window at a time, and holds where its
    /// current entry lies in the window.
    final class RunReader {
        let file: SpillFile
        private var nextOffset: Int
        private let end: Int
        private var window: UnsafeMutablePointer<UInt8>
        /// At most the window the merge gives it, and never more than the run's length:
        /// under a tiny memory limit a run is one batch of a few records and a merge reads
        /// tens of thousands of them at once (a window of 256 KiB each, a page of it touched,
        /// held 573 MiB at 240k cities under `--memory-limit 1`). It grows past that only
        /// for an entry longer than the window.
        private var capacity: Int
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
        /// The key's next eight bytes, the same way (see `Head`).
        private(set) var prefix2: UInt64 = 0

        /// Entries from this key on are past the run's end (nil: none are).
        private let upper: [UInt8]?
        /// Entries at these positions are skipped (see `Runs.leftOut`).
        private let leftOut: PositionSet
        /// Where the file's pages not yet freed behind the window start (nil: this reader
        /// frees none). Only whole pages inside the run go: its first and last pages may
        /// hold the runs beside it.
        private var releasedTo: Int?

        init(
            file: SpillFile, offset: Int, length: Int, windowSize: Int = 256 << 10, upper: [UInt8]? = nil,
            leftOut: PositionSet = PositionSet(), releasing: Bool = false
        ) {
            self.leftOut = leftOut
            self.file = file
            nextOffset = offset
            end = offset + length
            self.upper = upper
            releasedTo = releasing ? offset : nil
            capacity = max(1, min(256 << 10, windowSize, length))
            window = .allocate(capacity: capacity)
        }

        deinit { window.deallocate() }

        var windowCapacity: Int { capacity }

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
            if prefix2 != other.prefix2 { return prefix2 < other.prefix2 }
            // Equal (zero-padded) prefixes: the first 16 bytes both keys have are equal.
            let common = min(keyCount, other.keyCount)
            let known = min(16, common)
            let order =
                common == known
                ? 0 : memcmp(window + keyStart + known, other.window + other.keyStart + known, common - known)
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
            // The bytes read are in the window now: the file's pages under them can go.
            if let from = releasedTo, nextOffset - from >= 64 << 10 {
                file.release(at: from, count: nextOffset - from)
                releasedTo = nextOffset / 4_096 * 4_096
            }
            filled = kept + wanted
            cursor = 0
        }

        /// Moves to the run's next entry not left out; false at its end.
        func advance() -> Bool {
            while step() {
                if leftOut.isEmpty || !leftOut.contains(position) { return true }
            }
            return false
        }

        /// Moves to the run's next entry; false at its end.
        private func step() -> Bool {
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
            prefix2 = keyCount > 8 ? KeyTable.prefix(of: UnsafeBufferPointer(rebasing: key[8...])) : 0
            if let upper, compare(to: upper) >= 0 {
                nextOffset = end
                cursor = filled
                return false
            }
            return true
        }

        /// The order of the current entry's key against `other` (byte order, shorter first
        /// on a tie, as `precedes`): negative, zero or positive.
        func compare(to other: [UInt8]) -> Int {
            let common = min(keyCount, other.count)
            let order =
                common == 0 ? 0 : other.withUnsafeBufferPointer { memcmp(window + keyStart, $0.baseAddress!, common) }
            if order != 0 { return Int(order) }
            return keyCount - other.count
        }
    }
}
