import CSeedForgeSupport
import Foundation

/// The records of one collection: in memory, and, once the run's records outgrow its
/// memory limit, the older ones encoded (`RecordCodec`) in batches on disk. Order is kept:
/// the spilled batches first, then the records in memory. A store that never spilled is
/// one array, exactly as before the limit existed, so a run within its limit pays nothing.
final class RecordStore {
    /// Records spilled together, in order: `count` records at `offset` of a spill file.
    struct Batch {
        let file: SpillFile
        let offset: Int
        let length: Int
        let count: Int
    }

    private(set) var spilled: [Batch] = []
    private(set) var spilledCount = 0
    /// Past the limit, a sort leaves the collection as its sorted runs (`SortedRuns`), not
    /// merged into batches: each reader merges them as it reads, a batch at a time, so the
    /// sorted collection is not written to disk once more and read back (at 5M cities under
    /// 512 MiB, 4.9M records and about 270 MB). While set, `spilled` is empty and
    /// `spilledCount` counts the runs' entries; a change to the collection merges them into
    /// batches first (`settleRuns`).
    private var sortedRuns: SortedRuns.Runs?
    /// Positions among the spilled batches' records (as written, in ascending order) that
    /// are no longer in the collection (dedupe's losers, `drop`): every reader leaves them
    /// out, so removing them costs no pass of its own (the next step reads the batches
    /// anyway). `spilledCount` does not count them. Empty while `sortedRuns` is set.
    private var dropped: [Int] = []
    /// The newest records, in memory.
    var resident: [Record] = []
    /// Values per record (the schema's fields): decoded records get room for all of them.
    let width: Int
    let space: SpillSpace

    init(width: Int, space: SpillSpace) {
        self.width = width
        self.space = space
        space.register(self)
    }

    var count: Int { spilledCount + resident.count }
    var isSpilled: Bool { !spilled.isEmpty || sortedRuns != nil || sortedAtSpill != nil }

    /// Adds a record; over the memory limit, the records in memory are written to disk.
    /// (A spill that fails keeps them in memory and fails the run after the step: see
    /// `SpillSpace.failure`.)
    func append(_ record: Record) {
        resident.append(record)
        if resident.count % checkInterval == 0 { space.enforce(appending: self) }
    }

    /// Appends `count` records that `next` gives one by one (moved from where they were
    /// parsed), checking the memory limit at the same counts as `append(_:)` one at a time
    /// does, so spills happen at the same records. Between two checks the records are
    /// appended in one access to `resident`, not one access each.
    func append(count: Int, _ next: () -> Record) {
        var left = count
        while left > 0 {
            let run = min(left, checkInterval - resident.count % checkInterval)
            Self.append(run, to: &resident, next)
            left -= run
            if resident.count % checkInterval == 0 { space.enforce(appending: self) }
        }
    }

    /// Whether `count` records of about `averageBytes` each in memory can join an empty
    /// store at once, as `adopt` takes them: with every collection's records in memory,
    /// they stay under a quarter of the limit, half the total at which a check of
    /// `append(count:_:)` would spill, so appending them one check at a time would not
    /// have spilled any of them.
    func hasRoom(forRecords count: Int, averageBytes: Int) -> Bool {
        guard resident.isEmpty, space.failure == nil else { return false }
        return space.residentBytes + count * (MemoryLayout<Record>.stride + averageBytes) <= space.limit / 4
    }

    /// Takes `records` as the store's records in memory (it holds none), then checks the
    /// memory limit once (see `hasRoom`).
    func adopt(_ records: [Record]) {
        precondition(resident.isEmpty, "records adopted by a store that holds some")
        resident = records
        sampledAt = 0
        space.enforce(appending: self)
    }

    private static func append(_ count: Int, to records: inout [Record], _ next: () -> Record) {
        for _ in 0..<count { records.append(next()) }
    }

    private var checkInterval: Int { space.checkInterval }

    func append(contentsOf records: [Record]) {
        resident += records
        space.enforce(appending: self)
    }

    /// Every record, in order, in memory (decoded when spilled). A step that needs the
    /// whole collection at once holds it so; record-by-record steps use `rewrite`.
    func all() -> [Record] {
        guard isSpilled else { return resident }
        space.noteHeldWhole(count)
        var records: [Record] = []
        records.reserveCapacity(count)
        // `try!`: the body does not throw, and reading spilled bytes stops the run with a
        // precondition, not an error.
        try! forEachSpilledRecords(of: source) { records += $0 }
        return records + resident
    }

    /// Replaces the records (a step's result held whole); spills again if over the limit.
    func replace(with records: [Record]) {
        release()
        resident = records
        sampledAt = 0
        space.enforce(appending: self)
    }

    /// Takes every record out, leaving the store empty.
    func take() -> [Record] {
        let records = all()
        release()
        resident = []
        return records
    }

    /// Calls `body` with consecutive runs of the records, in order, at most
    /// `SpillSpace.batchRecords` at a time: one batch of spilled records in memory at a time.
    /// While `shared` is set, the spilled batches are decoded once for the readers it
    /// counts (see `sharingDecodedBatches`).
    func forEachBatch(_ body: (ArraySlice<Record>) throws -> Void) throws {
        if let shared {
            // `sharingDecodedBatches` merged any sorted runs into batches: readers going side by
            // side may ask for a batch again, which a merge cannot give. (Not `source`: a
            // store whose runs' pages were freed must stop here too, not read what is left.)
            precondition(!consumed, "a collection read again after the last read of its sorted runs")
            let batches = spilled
            try shared.read(batches.count, decode: { space.decode(batches[$0], width: width) }) { try body($0[...]) }
        } else {
            let releasing = lastRead && sortedRuns != nil
            try forEachSpilledRecords(of: source, releasing: releasing) { try body($0[...]) }
            if releasing {
                consumed = true
                lastRead = false
            }
        }
        try forEachResidentBatch(body)
    }

    /// Like `forEachBatch`, with only the fields `reading` marks made in spilled records
    /// (the others null), each decoded for this reader alone: for a pass that looks at a
    /// few fields (the records an output's `where` keeps).
    func forEachBatch(reading: [Bool], _ body: (ArraySlice<Record>) throws -> Void) throws {
        try forEachSpilledRecords(of: source, reading: reading) { try body($0[...]) }
        try forEachResidentBatch(body)
    }

    private func forEachResidentBatch(_ body: (ArraySlice<Record>) throws -> Void) throws {
        var start = 0
        while start < resident.count {
            let end = min(start + space.batchRecords, resident.count)
            try body(resident[start..<end])
            start = end
        }
    }

    /// Rewrites the records batch by batch (record-by-record steps): a spilled batch is
    /// read, changed by `body` (which may drop records) and spilled again; the records
    /// in memory are changed in place. Memory holds one spilled batch at a time.
    func rewrite(_ body: (inout [Record]) throws -> Void) throws {
        if isSpilled {
            let old = source
            release()
            let file = try space.newFile()
            try forEachSpilledRecords(of: old) { records in
                try body(&records)
                try spill(records, to: file)
                // Findings read their values back from the input files: let those pages go.
                space.afterBatch()
            }
        }
        try body(&resident)
        sampledAt = 0
    }

    /// Called with the records in memory just before they are written to disk, which it
    /// may change or drop: while ingest reads, the pipeline's first record-by-record
    /// steps run here (`IngestSpillPass`), so that the records are written once, as
    /// those steps leave them, instead of written, read back, changed and written again.
    var beforeSpill: ((inout [Record]) -> Void)?
    /// Records `beforeSpill` dropped (rejected by those steps): ingest still counts them as
    /// kept, since its own statistics end before the steps begin.
    private(set) var droppedBeforeSpill = 0

    /// The sort keys of the step after ingest's record-by-record steps (a dedupe), made from
    /// each record as it is spilled, while it is still in memory (`IngestSpillPass`): the
    /// step then merges them without reading the collection back and decoding every
    /// record's key fields (at 20M cities under 2 GiB, about 1.1 GB read and 20M partial
    /// decodes). Any change to the spilled records but a spill lets them go (`release`,
    /// `drop`), and the step uses them only when they count every spilled record.
    var spillKeys: SpillKeys?
    /// Set with `spillKeys` (`IngestSpillPass`) when the collection is to be sorted by the
    /// step after that dedupe: the records spilled from then on are written as that sort's
    /// runs, not as batches (see `SortedAtSpill`). Only that dedupe and that sort read the
    /// collection before the runs are the sorted collection (`claimRuns`).
    var sortedAtSpill: SortedAtSpill?
    /// The sort keys of the runs gathered at spill (`sortedAtSpill`), until the sort claims
    /// them: their entries' positions are input positions, which dedupe's losers are left
    /// out by (`drop`).
    private var runsKeys: [Sort.Key]?
    /// The file `spillResident` appends to, until the spilled records are let go.
    private var spillTail: SpillFile?

    /// Keys gathered as sorted runs from the records as they are spilled, for step number
    /// `step` of the pipeline.
    struct SpillKeys {
        let step: Int
        let gathering: SortedRuns.Gathering
        /// Writes a record's key and appends its payload; false: the record has no key.
        let entry: (Record, inout ByteKey, inout [UInt8]) -> Bool
    }

    /// The keys gathered for step number `step`, covering every record (those in memory
    /// are spilled first, and their keys gathered as they go); nil when there are none
    /// or they no longer match the records. They are let go either way.
    func takeSpillKeys(step: Int) throws -> SortedRuns.Runs? {
        guard let keys = spillKeys, keys.step == step else {
            spillKeys = nil
            return nil
        }
        try spillResident()
        spillKeys = nil
        if sortedAtSpill != nil {
            // Every record went through both gatherings, from the same first spill on.
            precondition(keys.gathering.count == spilledCount, "records spilled as sorted runs outside of them")
            try endSortedAtSpill()
        }
        guard sortedRuns == nil || runsKeys != nil, dropped.isEmpty, keys.gathering.count == spilledCount else {
            return nil
        }
        return try keys.gathering.finish()
    }

    /// Ends the sort's runs gathered at spill when no dedupe keys were gathered beside them
    /// (the dedupe finds its duplicates in those runs: `Dedupe.winnersInSortedRuns`): the
    /// records still in memory are spilled into them first. Returns the runs' sort keys;
    /// nil when the collection is not held as such runs, or keys were gathered.
    func takeRunsGatheredAtSpill() throws -> [Sort.Key]? {
        if sortedAtSpill != nil {
            guard spillKeys == nil else { return nil }
            try spillResident()
            try endSortedAtSpill()
        }
        return runsKeys
    }

    /// Makes the sort's runs gathered at spill (every record spilled into them) the
    /// collection's sorted runs, in the order of `runsKeys`.
    private func endSortedAtSpill() throws {
        guard let atSpill = sortedAtSpill else { return }
        precondition(
            sortedRuns == nil && spilled.isEmpty && atSpill.gathering.count == spilledCount,
            "records spilled as sorted runs outside of them")
        sortedAtSpill = nil
        sortedRuns = try atSpill.gathering.finish()
        runsKeys = atSpill.keys
    }

    /// The runs gathered at spill (`sortedAtSpill`), when the collection is held so and
    /// nothing was dropped yet: dedupe picks its duplicates' bytes from them by input position.
    var runsGatheredAtSpill: SortedRuns.Runs? {
        guard runsKeys != nil, let sortedRuns, sortedRuns.leftOut.isEmpty else { return nil }
        return sortedRuns
    }

    /// Whether the collection is the runs gathered at spill in the order of `keys` (a
    /// sort's): then they become the sorted collection as they are (with at most as many
    /// runs as one merge reads within its budget), and true.
    func claimRuns(sortedBy keys: [Sort.Key]) throws -> Bool {
        guard let runsKeys, runsKeys == keys, let runs = sortedRuns else { return false }
        self.runsKeys = nil
        sortedRuns = try SortedRuns.bounded(runs, parts: 1)
        return true
    }

    /// Writes every record in memory to disk (the memory limit is reached), and gives
    /// the memory they held back to the system. `refilling`: records are being appended,
    /// and the next ones go where these were.
    func spillResident(refilling: Bool = false) throws {
        guard !resident.isEmpty else { return }
        // Spilled batches come after the sorted runs' records: those become batches first.
        try settleRuns()
        // Taken out of `resident` and written batch by batch.
        var records: [Record] = []
        swap(&records, &resident)
        sampledAt = 0
        var start = 0
        do {
            // Every spill of the store appends to one file: a file each (an open descriptor
            // each, until the records are read) made a run under a tiny limit fail with "Too
            // many open files" (240k cities under `--memory-limit 1`: a spill per record).
            let file = try spillTail ?? space.newFile()
            spillTail = file
            while start < records.count {
                let end = min(start + space.batchRecords, records.count)
                var batch: [Record]
                if let beforeSpill {
                    batch = Self.moveOut(start..<end, of: &records)
                    beforeSpill(&batch)
                    droppedBeforeSpill += end - start - batch.count
                } else {
                    batch = Array(records[start..<end])
                }
                if let spillKeys {
                    try batch.withUnsafeBufferPointer { batch in
                        try spillKeys.gathering.add(count: batch.count) { spillKeys.entry(batch[$0], &$1, &$2) }
                    }
                }
                if let sortedAtSpill {
                    try sortedAtSpill.add(batch, space: space)
                    spilledCount += batch.count
                } else {
                    try spill(batch, to: file)
                }
                start = end
            }
        } catch {
            // The records not yet written stay in memory; the run fails after the step with
            // this error (`SpillSpace.failure`, which also stops any later spill). A batch
            // that `beforeSpill` took is not among them (its places hold empty records):
            // nothing reads them again, since the run stops.
            resident = Array(records[start...])
            throw error
        }
        if refilling {
            // The array's room stays for the records appended next: made anew, it grew by
            // doubling again, each step a copy into memory the kernel had to fault in, on
            // the thread that takes records while the others waited (at 20M cities under
            // 2 GiB, 81 of that thread's samples alone in the copies).
            records.removeAll(keepingCapacity: true)
            if resident.isEmpty { swap(&records, &resident) }
        }
        records = []
        sampledAt = 0
        space.returnFreedMemory(whenSpilled: true)
    }

    /// Changes the records in memory (those ingest did not spill, after `beforeSpill` ran
    /// on the spilled ones) a batch at a time, as `beforeSpill` and a pass over spilled
    /// batches do: every step over a batch of 65,536 records while it is in the cache, where
    /// each step over all of them (at 20M cities under 2 GiB, millions of records, about 1 GB)
    /// made the whole run take 1.12x the CPU time of the pass after ingest it replaced. The records kept move back into place.
    func changeResident(_ body: (inout [Record]) throws -> Void) rethrows {
        var kept = 0
        var start = 0
        while start < resident.count {
            let end = min(start + space.batchRecords, resident.count)
            var batch = Self.moveOut(start..<end, of: &resident)
            try body(&batch)
            for record in batch {
                resident[kept] = record
                kept += 1
            }
            start = end
        }
        resident.removeLast(resident.count - kept)
        sampledAt = 0
    }

    /// The records at `range`, moved into an array of their own (each left as a record of
    /// no values), so that a change to one changes its row in place instead of copying it.
    private static func moveOut(_ range: Range<Int>, of records: inout [Record]) -> [Record] {
        guard !range.isEmpty else { return [] }
        // One record of no values, made once, fills every place left (no allocation each).
        let filler = Record(values: [], origin: records[range.lowerBound].origin)
        // Moved as bytes, the filler put in their places: a copy and an assignment each
        // counted references on every record's row (a cache miss each, on the thread that
        // spills).
        return records.withUnsafeMutableBufferPointer { records in
            let from = records.baseAddress! + range.lowerBound
            return [Record](unsafeUninitializedCapacity: range.count) { batch, initialized in
                batch.baseAddress!.moveInitialize(from: from, count: range.count)
                from.initialize(repeating: filler, count: range.count)
                initialized = range.count
            }
        }
    }

    /// Decodes each spilled batch once for `readers` readers going through the records
    /// side by side (the outputs of the collection and the snapshot) while `body` runs;
    /// each of them must call `forEachBatch` once. At most two decoded batches are kept
    /// beyond those the readers hold.
    ///
    /// One reader of sorted runs: its pass is their last read, so the merge frees their
    /// pages behind it (`SortedRuns.Merge(releasing:)`), and the outputs' writes reuse
    /// them; the collection cannot be read again after that pass.
    func sharingDecodedBatches<T>(readers: Int, _ body: () throws -> T) throws -> T {
        if readers == 1, sortedRuns != nil {
            lastRead = true
            defer { lastRead = false }
            return try body()
        }
        guard isSpilled, readers > 1 else { return try body() }
        // A reader may ask for a batch the others have passed and let go, so the batches
        // must be where they can be read again: sorted runs are merged into batches first
        // (one reader merges them as it reads instead).
        try settleRuns()
        try settleDropped()
        let shared = SharedBatches<Record>(readers: readers)
        self.shared = shared
        defer {
            self.shared = nil
            sharedDecodes = (batches: spilled.count, decodes: shared.decodes)
        }
        return try body()
    }

    /// Set while `sharingDecodedBatches` runs.
    private var shared: SharedBatches<Record>?
    /// Set while `sharingDecodedBatches` runs for the one reader of sorted runs: its pass
    /// over every record (`forEachBatch`) is their last read.
    private var lastRead = false
    /// Set once that pass has freed the runs' pages: the records are gone.
    private var consumed = false
    /// After `sharingDecodedBatches`: the spilled batches and how many times they were
    /// decoded in all, for the log.
    private(set) var sharedDecodes: (batches: Int, decodes: Int)?

    // MARK: Records as bytes

    /// Calls `body` with each spilled batch as bytes (as `RecordCodec` wrote them), its
    /// record count and the position of its first record in the collection, in order.
    /// The records in memory are spilled first, so every record is in some batch.
    ///
    /// `releasing`: this is the batches' last read (the caller replaces the collection
    /// after it), so each batch's pages are freed once `body` is done with it (see
    /// `SpillFile.release`): the pages the caller writes next reuse them.
    func forEachEncodedBatch(
        releasing: Bool = false, _ body: (UnsafeBufferPointer<UInt8>, _ count: Int, _ first: Int) throws -> Void
    ) throws {
        try spillResident()
        try forEachSpilledBytes(of: source, releasing: releasing) { bytes, count, first, _ in
            try body(bytes, count, first)
        }
    }

    /// Appends `count` records already encoded by the run's codec (`bytes`, one after
    /// another) to `file` as one spilled batch, after the records spilled so far. Only for
    /// a store with no records in memory (records in memory come after spilled ones).
    func appendEncoded(_ bytes: [UInt8], count: Int, to file: SpillFile) throws {
        precondition(resident.isEmpty, "encoded records appended behind records in memory")
        try appendBatch(bytes, count: count, to: file)
    }

    private func appendBatch(_ bytes: [UInt8], count: Int, to file: SpillFile) throws {
        precondition(sortedRuns == nil, "encoded records appended behind sorted runs")
        guard count > 0 else { return }
        let offset = try file.append(bytes)
        spilled.append(Batch(file: file, offset: offset, length: bytes.count, count: count))
        spilledCount += count
        space.noteSpilled(records: count, bytes: bytes.count)
    }

    /// Rewrites the spilled batches as bytes (every record spilled first): `body` gets a
    /// batch's bytes, its count and the position of its first record, and returns the
    /// batch's new bytes and count, or nil to keep the batch as it is (not written again,
    /// unless it exists only as a piece of a merge of sorted runs or holds dropped records:
    /// such a batch is written once here).
    func rewriteEncoded(
        _ body: (UnsafeBufferPointer<UInt8>, _ count: Int, _ first: Int) throws -> (bytes: [UInt8], count: Int)?
    ) throws {
        try spillResident()
        let old = source
        release()
        var file: SpillFile?
        try forEachSpilledBytes(of: old) { bytes, count, first, batch in
            let changed = try body(bytes, count, first)
            if changed == nil, let batch {
                spilled.append(batch)
                spilledCount += batch.count
                return
            }
            // A batch cut from a merge is on disk only once written here.
            if file == nil { file = try space.newFile() }
            try appendEncoded(changed?.bytes ?? Array(bytes), count: changed?.count ?? count, to: file!)
        }
    }

    /// Makes the collection the merge of `runs` (every record is in them, in their order):
    /// what a sort past the limit leaves. Only for a store with no records otherwise.
    func setSortedRuns(_ runs: SortedRuns.Runs) {
        precondition(spilled.isEmpty && resident.isEmpty && dropped.isEmpty, "sorted runs set over records")
        sortedRuns = runs
        spilledCount = runs.count
    }

    /// Merges sorted runs (see `sortedRuns`) into spilled batches, once, before the
    /// collection changes or is read by readers side by side.
    private func settleRuns() throws {
        precondition(!consumed, "a collection read again after the last read of its sorted runs")
        precondition(runsKeys == nil, "a collection changed before the sort of the runs gathered at spill")
        guard let runs = sortedRuns else { return }
        sortedRuns = nil
        spilledCount = 0
        let file = try space.newFile()
        // The runs' last read: their pages go as they are read, for the batches' writes.
        try forEachSpilledBytes(of: .runs(runs), releasing: true) { bytes, count, _, _ in
            try appendBatch(Array(bytes), count: count, to: file)
        }
    }

    /// Where the spilled records are: batches on disk, or sorted runs to merge.
    private enum Source {
        case batches([Batch], dropped: [Int])
        case runs(SortedRuns.Runs)
    }

    private var source: Source {
        precondition(!consumed, "a collection read again after the last read of its sorted runs")
        precondition(
            sortedAtSpill == nil && runsKeys == nil, "a collection read before the sort of the runs gathered at spill")
        return sortedRuns.map { .runs($0) } ?? .batches(spilled, dropped: dropped)
    }

    /// Removes the spilled records at `positions` (ascending, as readers number them now):
    /// the readers after leave them out (see `dropped`). Every record must be spilled.
    func drop(_ positions: [Int]) throws {
        guard !positions.isEmpty else { return }
        precondition(resident.isEmpty, "records dropped from a store with records in memory")
        spillKeys = nil
        if runsKeys != nil, var runs = sortedRuns {
            // Runs gathered at spill, not yet read: their entries carry input positions, the
            // positions as written (`runsGatheredAtSpill`), and the merges skip them.
            precondition(runs.leftOut.isEmpty, "records dropped twice from runs gathered at spill")
            runs.leftOut = PositionSet(positions)
            sortedRuns = runs
            spilledCount -= positions.count
            return
        }
        try settleRuns()
        // A position as readers number it, past the records dropped before it, is a
        // position as written.
        var written: [Int] = []
        written.reserveCapacity(dropped.count + positions.count)
        var earlier = 0
        for position in positions {
            while earlier < dropped.count, dropped[earlier] <= position + earlier {
                written.append(dropped[earlier])
                earlier += 1
            }
            written.append(position + earlier)
        }
        written += dropped[earlier...]
        dropped = written
        spilledCount -= positions.count
    }

    /// Writes the spilled batches again without the dropped records (readers side by side
    /// read batches as written).
    private func settleDropped() throws {
        guard !dropped.isEmpty else { return }
        try rewriteEncoded { _, _, _ in nil }
    }

    /// The records of a batch but those at `indexes` (ascending), as bytes.
    private static func leavingOut(
        _ indexes: [Int], of bytes: UnsafeBufferPointer<UInt8>, count: Int
    ) -> (bytes: [UInt8], count: Int) {
        let starts = RecordCodec.starts(bytes, count: count)
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var from = 0
        for index in indexes {
            kept.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[starts[from]..<starts[index]]))
            from = index + 1
        }
        kept.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[starts[from]..<starts[count]]))
        return (kept, count - indexes.count)
    }

    /// Calls `body` with each batch of spilled records, decoded, in order (with `reading`,
    /// only the fields it marks; see `RecordCodec.decode`). The batch is `body`'s alone
    /// (`inout`): a step that changes its records changes them in place, where a copy of
    /// the array would copy every record's values on the first change (the fused pass took
    /// 1.1 to 1.3x its CPU time so at 5M cities).
    private func forEachSpilledRecords(
        of source: Source, reading: [Bool]? = nil, releasing: Bool = false, _ body: (inout [Record]) throws -> Void
    ) throws {
        switch source {
        case .batches:
            let codec = space.codec()
            try forEachSpilledBytes(of: source) { bytes, count, _, _ in
                var records = codec.decodeAll(
                    bytes, count: count, width: width, threads: space.threads, reading: reading)
                try body(&records)
            }
        case .runs(let runs):
            try forEachMergedBatch(runs, reading: reading, releasing: releasing, body)
        }
    }

    /// Calls `body` with the records of the merge of `runs`, decoded, `batchRecords` at a
    /// time. The merge goes on one thread (a heap): the next batch is merged while this one
    /// is decoded on the other threads, instead of every thread but one waiting for it.
    private func forEachMergedBatch(
        _ runs: SortedRuns.Runs, reading: [Bool]?, releasing: Bool, _ body: (inout [Record]) throws -> Void
    ) throws {
        let merge = SortedRuns.Merge(runs, releasing: releasing)
        let codec = space.codec()
        let threads = space.threads
        let batchRecords = space.batchRecords
        let width = width
        var current = MergedBatch()
        var next = MergedBatch()
        current.fill(from: merge, count: batchRecords)
        // The batch before, once `body` is done with it: a batch of as many records is
        // decoded over it, each record reusing its row where `body` kept no copy of it
        // (`RecordCodec.decode(_:count:width:reading:over:)`), instead of every row freed
        // here on the calling thread and another allocated on a helper.
        var records: [Record] = []
        while current.count > 0 {
            let count = current.count
            let pieces = max(1, min(2 * threads.count, count / 4_096))
            func decode(_ records: UnsafeMutablePointer<Record>, over: Bool) {
                // Task 0 changes `next` alone; the others only read `current`, and each
                // initializes (or decodes over) its own range of `records`.
                _ = threads.run(1 + pieces) { task in
                    if task == 0 {
                        next.fill(from: merge, count: batchRecords)
                        return
                    }
                    current.decode(
                        (count * (task - 1) / pieces)..<(count * task / pieces), codec: codec, width: width,
                        reading: reading, into: records, over: over)
                }
            }
            if records.count == count {
                records.withUnsafeMutableBufferPointer { decode($0.baseAddress!, over: true) }
            } else {
                // Each piece's records are decoded into their place in the batch's array.
                records = []
                records = RecordCodec.filled(count) { decode($0, over: false) }
            }
            try body(&records)
            swap(&current, &next)
        }
    }

    /// A batch of records as the merge of sorted runs hands them over: their bytes one
    /// after another, and where each starts.
    private struct MergedBatch {
        var bytes: [UInt8] = []
        var starts: [Int] = []
        var count: Int { starts.count }

        mutating func fill(from merge: SortedRuns.Merge, count: Int) {
            bytes.removeAll(keepingCapacity: true)
            starts.removeAll(keepingCapacity: true)
            _ = merge.next(count) { entry in
                starts.append(bytes.count)
                bytes.append(contentsOf: entry.payload)
            }
        }

        /// Decodes the records in `range` into their places from `records` on (`over`:
        /// over the records there, not into uninitialized memory).
        func decode(
            _ range: Range<Int>, codec: RecordCodec, width: Int, reading: [Bool]?,
            into records: UnsafeMutablePointer<Record>, over: Bool
        ) {
            guard !range.isEmpty else { return }
            bytes.withUnsafeBufferPointer { buffer in
                var reader = RecordCodec.Reader(buffer, at: starts[range.lowerBound])
                if over {
                    codec.decode(
                        &reader, count: range.count, width: width, reading: reading, over: records + range.lowerBound)
                } else {
                    codec.decode(
                        &reader, count: range.count, width: width, reading: reading, into: records + range.lowerBound)
                }
            }
        }
    }

    /// Calls `body` with each batch of spilled records as bytes, in order, with its count,
    /// the position of its first record and the batch on disk it is (nil for one cut from
    /// the merge of sorted runs, `batchRecords` records at a time as the merge goes).
    private func forEachSpilledBytes(
        of source: Source, releasing: Bool = false,
        _ body: (UnsafeBufferPointer<UInt8>, _ count: Int, _ first: Int, _ batch: Batch?) throws -> Void
    ) throws {
        var first = 0
        switch source {
        case .batches(let batches, let dropped):
            // The records as written before the batch, and the first dropped one at or after it.
            var written = 0
            var next = 0
            for batch in batches {
                let bytes = batch.file.read(at: batch.offset, count: batch.length)
                let end = written + batch.count
                var past = next
                while past < dropped.count, dropped[past] < end { past += 1 }
                if past == next {
                    try bytes.withUnsafeBufferPointer { try body($0, batch.count, first, batch) }
                    first += batch.count
                } else {
                    let kept = bytes.withUnsafeBufferPointer {
                        Self.leavingOut(dropped[next..<past].map { $0 - written }, of: $0, count: batch.count)
                    }
                    if kept.count > 0 {
                        try kept.bytes.withUnsafeBufferPointer { try body($0, kept.count, first, nil) }
                    }
                    first += kept.count
                }
                if releasing { batch.file.release(at: batch.offset, count: batch.length) }
                written = end
                next = past
            }
        case .runs(let runs):
            let merge = SortedRuns.Merge(runs, releasing: releasing)
            var bytes: [UInt8] = []
            while true {
                bytes.removeAll(keepingCapacity: true)
                let count = merge.next(space.batchRecords) { bytes.append(contentsOf: $0.payload) }
                if count == 0 { break }
                try bytes.withUnsafeBufferPointer { try body($0, count, first, nil) }
                first += count
            }
        }
    }

    private func spill(_ records: [Record], to file: SpillFile) throws {
        guard !records.isEmpty else { return }
        let pieces = space.encode(records)
        let offset = try file.append(pieces)
        let length = pieces.reduce(0) { $0 + $1.count }
        spilled.append(Batch(file: file, offset: offset, length: length, count: records.count))
        spilledCount += records.count
    }

    private func release() {
        consumed = false
        spillTail = nil
        spilled = []
        spilledCount = 0
        sortedRuns = nil
        dropped = []
        spillKeys = nil
        sortedAtSpill = nil
        runsKeys = nil
    }

    /// An estimate of the memory the records in memory take: the average size of 64
    /// records spread over them, times their count. The average is sampled again once the
    /// count has moved by an eighth since it was taken, or the records were changed
    /// (`rewrite`, `replace`), so checking the limit every few hundred appends costs a
    /// multiplication, not a walk over 64 records (5% of a 1M-row CSV run did that).
    var residentBytes: Int {
        let count = resident.count
        guard count > 0 else { return 0 }
        if sampledAt == 0 || count > sampledAt + sampledAt / 8 || count < sampledAt - sampledAt / 8 {
            let step = max(1, count / 64)
            var sampled = 0
            var bytes = 0
            var index = 0
            while index < count {
                bytes += Self.size(of: resident[index])
                sampled += 1
                index += step
            }
            sampledAverage = bytes / sampled
            sampledAt = count
        }
        return sampledAverage * count
    }

    /// The average size of a record in memory when `residentBytes` last sampled, and the
    /// count of records in memory then (0: to be sampled).
    private var sampledAverage = 0
    private var sampledAt = 0

    /// Makes room for `count` more records in memory (a file's records about to be taken),
    /// at least doubling the room when it grows, so many small files stay linear; not
    /// when the room alone would take a good part of the memory limit (they will spill).
    func reserve(_ count: Int) {
        let needed = resident.count + count
        guard needed * MemoryLayout<Record>.stride <= space.limit / 8 else { return }
        if resident.capacity < needed { resident.reserveCapacity(max(needed, resident.capacity * 2)) }
    }

    /// Bytes a record takes in memory: its place in the store's array and its row.
    static func size(of record: Record) -> Int {
        MemoryLayout<Record>.stride + record.row.allocatedBytes
    }
}

/// How much record memory a run may hold (`--memory-limit`, `limits: max-memory`), and
/// where it writes the records beyond it: a folder made on the first spill and removed
/// when the run ends. Spill files are unlinked as soon as they are opened, so a killed run
/// leaves at most an empty folder, which the next run removes.
final class SpillSpace {
    /// Bytes of records the run's collections may hold in memory at once.
    let limit: Int
    /// The folder spill files are made in (created when first needed).
    let folder: String
    private var made = false
    private var stores: [RecordStore] = []
    private var cachedCodec: RecordCodec?
    /// The run's source files so far (set by the run's state).
    var sources: () -> [SourceText] = { [] }
    /// Called after each spilled batch a step rewrote (the run's state releases the input
    /// files' pages that findings read back).
    var afterBatch: () -> Void = {}
    let threads: Threads
    /// Records and bytes written to disk, for the log and the manifest.
    private(set) var spilledRecords = 0
    private(set) var spilledBytes = 0
    private(set) var spills = 0
    /// Steps that had to hold a spilled collection whole (label → most records held).
    private(set) var heldWhole: [(step: String, records: Int)] = []
    /// The step running, for `heldWhole`.
    var step = "ingest"

    /// Records written to disk at a time, and read back at a time: 65,536, fewer under a
    /// limit so small that such a batch would not fit in it.
    let batchRecords: Int
    /// Records appended between two checks of the memory held.
    let checkInterval: Int

    init(limit: Int, folder: String, threads: Threads) {
        self.limit = limit
        batchRecords = max(4, min(65_536, limit / 1024))
        checkInterval = min(256, batchRecords)
        self.folder = folder
        self.threads = threads
    }

    func register(_ store: RecordStore) { stores.append(store) }

    /// The records every collection holds in memory, in bytes (sampled: `RecordStore.residentBytes`),
    /// with the records spilled as a sort's runs not yet written (`SortedAtSpill`): counted,
    /// they make the records in memory spill that much earlier, so that what ingest holds
    /// stays as without them (at 5M cities under 512 MiB, the run's peak was 465 MiB, not 420).
    var residentBytes: Int {
        stores.reduce(0) { $0 + $1.residentBytes + ($1.sortedAtSpill?.gathering.pendingBytes ?? 0) }
    }

    /// The first spill that failed (a full disk): the records stayed in memory, and the
    /// run fails with it at the end of the step (`check`).
    private(set) var failure: Error?

    /// Spills the store being appended to when all stores together hold more than half
    /// the limit in memory (the other half is for what steps hold besides records: keys,
    /// windows of input, rendered output, side outputs). Only the growing store spills:
    /// the others are not being touched.
    func enforce(appending store: RecordStore) {
        guard failure == nil, store.resident.count >= checkInterval else { return }
        guard residentBytes > limit / 2 else { return }
        do { try store.spillResident(refilling: true) } catch { failure = error }
    }

    /// Throws the failure of a spill, if one failed.
    func check() throws {
        if let failure { throw failure }
    }

    func noteHeldWhole(_ count: Int) {
        if let index = heldWhole.firstIndex(where: { $0.step == step }) {
            heldWhole[index].records = max(heldWhole[index].records, count)
        } else {
            heldWhole.append((step, count))
        }
    }

    func newFile() throws -> SpillFile {
        if !made {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            made = true
        }
        return try SpillFile(folder: folder)
    }

    /// The codec for the sources read so far (ingest adds files as it goes).
    func codec() -> RecordCodec {
        let now = sources()
        if let cachedCodec, cachedCodec.sources.count == now.count { return cachedCodec }
        let fresh = RecordCodec(sources: now)
        cachedCodec = fresh
        return fresh
    }

    /// The records encoded in pieces side by side, in order: written one after another
    /// (`SpillFile.append`), not joined first, a copy of every spilled byte into fresh memory
    /// on the thread that spills (at 5M cities under 512 MiB, most of that thread's 163
    /// `memmove` samples were joins).
    func encode(_ records: [Record]) -> [[UInt8]] {
        encodePieces(records, starts: false) { _ in () }.map(\.bytes)
    }

    /// `encode`'s pieces, each with the records it holds (`first` and on), with `starts`
    /// where each of them starts in it and where the last ends (a sort's runs carry each
    /// record's bytes: `SortedAtSpill`), and what `beside` makes of its range of records on
    /// the same thread (that sort's keys).
    func encodePieces<Beside>(
        _ records: [Record], starts: Bool, beside: (Range<Int>) -> Beside
    ) -> [(first: Int, bytes: [UInt8], starts: [Int], beside: Beside)] {
        let codec = codec()
        let pieces = Parallel.chunks(records.count, threads: threads, minimumChunk: 4_096) { range in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(range.count * 80)
            var recordStarts: [Int] = []
            if starts { recordStarts.reserveCapacity(range.count + 1) }
            for index in range {
                if starts { recordStarts.append(bytes.count) }
                codec.encode(records[index], into: &bytes)
            }
            if starts { recordStarts.append(bytes.count) }
            return (first: range.lowerBound, bytes: bytes, starts: recordStarts, beside: beside(range))
        }
        noteSpilled(records: records.count, bytes: pieces.reduce(0) { $0 + $1.bytes.count })
        return pieces
    }

    func decode(_ batch: RecordStore.Batch, width: Int, reading: [Bool]? = nil) -> [Record] {
        let bytes = batch.file.read(at: batch.offset, count: batch.length)
        return codec().decodeAll(bytes, count: batch.count, width: width, threads: threads, reading: reading)
    }

    /// Counts records written to disk as bytes already encoded (see `encode`).
    func noteSpilled(records: Int, bytes: Int) {
        spilledRecords += records
        spilledBytes += bytes
        spills += 1
    }

    /// Gives memory freed by a large phase back to the system (glibc keeps freed heap
    /// pages otherwise, and they count in the run's resident memory). A trim walks the
    /// whole heap, so after a spill (`whenSpilled`) it is done only once a sixteenth of the
    /// limit, and at least 1 MiB, was written since the last: under a small limit a spill
    /// every few records would otherwise trim every few records.
    func returnFreedMemory(whenSpilled: Bool = false) {
        if whenSpilled {
            guard spilledBytes - spilledAtTrim >= max(limit / 16, 1 << 20) else { return }
        }
        spilledAtTrim = spilledBytes
        seedforge_return_free_memory()
    }
    private var spilledAtTrim = 0

    /// Removes the folder (the files in it are already unlinked).
    func remove() {
        guard made else { return }
        try? FileManager.default.removeItem(atPath: folder)
        made = false
    }

    /// The default limit: half the memory this process may use (the machine's, or its
    /// control group's when that is smaller).
    static func defaultLimit() -> Int {
        var memory = Int(sysconf(Int32(_SC_PHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
        if let text = try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8),
            let group = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), group > 0
        {
            memory = min(memory, group)
        }
        return max(64 << 20, memory / 2)
    }
}

/// A file of spilled records: written by appending, read back by position. It is
/// unlinked as soon as it is made, so it disappears when the run ends, however it ends.
final class SpillFile: @unchecked Sendable {
    private let fd: Int32
    private var size = 0
    /// Where it lies (for messages: the file itself is unlinked once open).
    private let folder: String

    init(folder: String) throws {
        self.folder = folder
        let path = "\(folder)/records-\(UUID().uuidString)"
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SpillError(message: "cannot create a spill file in \(folder): \(String(cString: strerror(errno)))")
        }
        unlink(path)
    }

    deinit { close(fd) }

    /// Appends pieces of bytes one after another; returns where the first starts.
    func append(_ pieces: [[UInt8]]) throws -> Int {
        let start = size
        for piece in pieces { _ = try append(piece) }
        return start
    }

    /// Appends bytes; returns where they start.
    func append(_ bytes: [UInt8]) throws -> Int {
        let start = size
        var written = 0
        try bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let result = pwrite(fd, buffer.baseAddress! + written, buffer.count - written, off_t(start + written))
                if result < 0 {
                    if errno == EINTR { continue }
                    throw SpillError(
                        message:
                            "cannot write records past the memory limit to \(folder) (\(buffer.count) bytes at \(start + written)): \(String(cString: strerror(errno))); free space there or raise --memory-limit"
                    )
                }
                written += result
            }
        }
        size += bytes.count
        return start
    }

    /// Frees the pages under `count` bytes at `offset` that nothing will read again (a hole
    /// punched in the file; they read back as zeros after). Only the pages wholly inside
    /// the range go, so a neighbour's bytes on a page it shares stay. Why: this virtual
    /// machine's host gives the guest back the pages it frees (free page reporting), and a
    /// page touched again after that costs a fault on the host, about 2 s of system time a
    /// GB (`dd` of 1 GB into a new file: 2.1 s, 0.2 s right after as much was freed). A
    /// spill file freed whole at the end of its last read is reported before the writes
    /// after it can reuse it; freed as it is read, its pages go straight to those writes.
    func release(at offset: Int, count: Int) {
        let page = 4_096
        let start = (offset + page - 1) / page * page
        let end = (offset + count) / page * page
        guard end > start else { return }
        seedforge_punch_hole(fd, Int64(start), Int64(end - start))
    }

    /// Reads `count` bytes at `offset` into `buffer`.
    func read(at offset: Int, count: Int, into buffer: UnsafeMutablePointer<UInt8>) {
        var done = 0
        while done < count {
            let result = pread(fd, buffer + done, count - done, off_t(offset + done))
            if result < 0, errno == EINTR { continue }
            precondition(result > 0, "a spill file ended early: \(String(cString: strerror(errno)))")
            done += result
        }
    }

    func read(at offset: Int, count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let result = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if result < 0, errno == EINTR { continue }
                precondition(result > 0, "a spill file ended early: \(String(cString: strerror(errno)))")
                done += result
            }
            initialized = count
        }
    }
}

/// A spill file could not be written (a full disk): the run fails, previous outputs kept.
/// Records past the memory limit that cannot go to disk (a full disk, a file-size limit):
/// an I/O error (exit 3), the previous outputs kept.
public struct SpillError: ExitCoded, Sendable {
    public let message: String
    public var exitStatus: ExitStatus { .ioOrInternal }
    public var description: String { "error: \(message)" }
}
