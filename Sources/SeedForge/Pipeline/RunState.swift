import Foundation

/// A record set aside by a rule, with every finding that rejected it.
public struct Rejection: Sendable {
    public let collection: CollectionID
    public let record: Record?
    /// The record's id, when the source declares an id field and the record has one.
    public let id: Value?
    public let findings: [Finding]
    /// The step that rejected it ("ingest", "validate: range").
    public let step: String
    /// Where it stands in a plain run's order (for sharded runs).
    var place = EntryPlace()
}

/// A source read only in part: the page whose next page was not saved, and that page's
/// file (paths relative to the pipeline's folder), for the manifest's `incomplete`.
public struct IncompleteSource: Sendable {
    public let collection: CollectionID
    public let page: String
    public let missing: String
}

/// A record removed as a duplicate, with the id of the record that won.
public struct Duplicate: Sendable {
    public let collection: CollectionID
    public let record: Record
    public let id: Value?
    public let winnerID: Value?
    public let winnerLocation: Location
    public let key: Value
    public let step: String
    /// Fields the winner took from this record because its own were null (`fill`).
    public let filled: [String]
    /// How far the record lay from its winner, in km (`dedupe within`), to the metre.
    public let distanceKm: Double?
}

/// A warning-severity finding: reported, the record kept.
public struct Warning: Sendable {
    public let collection: CollectionID
    public let id: Value?
    public let finding: Finding
    public let step: String
    /// Where it stands in a plain run's order (for sharded runs).
    var place = EntryPlace()
}

/// Where a file read stands in its pipeline: the number of its source (in `sources:`) and
/// its place among that source's files, in the order a plain run reads them.
struct SourceFile: Hashable, Comparable {
    let source: Int
    let rank: Int
    /// Which byte range of a file split between shards (see `Shard`); 0 for a whole file.
    var part = 0

    static func < (a: SourceFile, b: SourceFile) -> Bool {
        (a.source, a.rank, a.part) < (b.source, b.rank, b.part)
    }
}

/// Where a reject or warning stands in the order of a plain run: the step (`phase`), the
/// file of its record (a number in `RunState.sources`; -1: none), and its order of arrival.
struct EntryPlace {
    var phase = 0
    var file = -1
    var sequence = 0
}

/// Counts and time of one step, for the manifest and progress.
public struct StepStat: Sendable {
    public let label: String
    public let stage: Stage
    public let collection: CollectionID
    public let recordsIn: Int
    public let recordsOut: Int
    public let rejected: Int
    public let duplicates: Int
    public let warnings: Int
    public internal(set) var seconds: Double
    /// Records a step rewrote, for steps that count them (`replace`); nil otherwise.
    public var changed: Int? = nil
}

/// Everything a run holds while data flows: the collections, and the side outputs that
/// make "nothing is lost" checkable.
public final class RunState {
    public let schemas: [CollectionID: Schema]
    /// Each collection's records (see `RecordStore`: in memory, or spilled to disk past
    /// the memory limit).
    private var stores: [CollectionID: RecordStore] = [:]
    /// The memory limit and where records beyond it go.
    let spill: SpillSpace
    public internal(set) var rejects: [Rejection] = []
    /// The duplicates removed, in order: held as values, or, from a dedupe past the memory
    /// limit whose duplicates outgrew their budget, rendered as lines on disk (`SideLog`).
    private(set) var duplicateLog: SideLog<Duplicate>!
    /// The duplicates held as values: every one when the run holds them
    /// (`holdsDuplicates`, pipeline tests) or no dedupe past the memory limit rendered them;
    /// otherwise only those since (`duplicateLog` counts and writes them all).
    public var duplicates: [Duplicate] { duplicateLog.entries }
    /// Duplicates removed from each collection.
    private var duplicatesIn: [CollectionID: Int] = [:]
    public internal(set) var warnings: [Warning] = []
    public var stepStats: [StepStat] = []
    /// Records each collection received from its sources.
    public var ingested: [CollectionID: Int] {
        get { recordsRead.counts }
        set { recordsRead.counts = newValue }
    }
    /// The same counts, readable beside the ingest while it goes on.
    let recordsRead = RecordsRead()
    /// Records the running step changed, when it counts them (see `noteChanged`).
    var changedByStep: Int?

    /// Called by a step that counts the records it rewrote; the runner puts the count in
    /// the step's statistics.
    public func noteChanged(_ count: Int) { changedByStep = count }

    /// Sources whose pages stopped at a page that was not saved (`on-missing-page: warn`).
    public var incomplete: [IncompleteSource] = []
    /// Records an `append` step moved out of a collection, and into one.
    public var appendedOut: [CollectionID: Int] = [:]
    public var appendedIn: [CollectionID: Int] = [:]
    /// Files that could not be read as a whole (validation only: a run stops at the first).
    public internal(set) var sourceErrors: [(collection: CollectionID, error: SourceError)] = []

    /// Threads per-record work may use.
    public let threads: Threads
    /// Told what the run is doing (stage, items and bytes done), when someone watches.
    var progress: (any ProgressObserver)?
    /// Every file read, numbered, with its place and manifest entry; its texts stay alive
    /// as long as records point at them.
    private(set) var inputFiles = InputFiles()
    /// Every file read, by number (see `inputFiles`).
    public var sources: [SourceText] { inputFiles.texts }
    /// The page numbers of each paginated source's pages, by source number, in read order.
    var pagesBySource: [Int: [PageMetadata]] = [:]

    /// Keeps a file read as the `rank`th file of source `source` (see `SourceFile`): it
    /// gets the next number in `inputFiles`.
    func keep(_ text: SourceText, source: Int = -1, rank: Int = -1, part: Int = 0) {
        inputFiles.add(text, place: SourceFile(source: source, rank: rank, part: part))
    }

    /// Books a kept file whose records are all read (its manifest entry).
    func book(_ text: SourceText, _ input: Manifest.Input) { inputFiles.book(text, input) }

    /// Adds a later part's records to a booked file split between shards.
    func addRecords(_ records: Int, to text: SourceText) { inputFiles.addRecords(records, to: text) }

    /// The step of the run in progress (0: ingest; 1 + the step's number in the pipeline,
    /// or for a block of validate steps, of its first step on the collection checked), and
    /// the file ingest is reading: with a sequence number, every reject and warning notes
    /// where it stands in the order of a plain run (`EntryPlace`), so the partial runs of
    /// shards merge into the same lists.
    var phase = 0
    var currentSource: SourceText?
    private var sequence = 0

    private func place(of record: Record?, _ finding: Finding?) -> EntryPlace {
        // A finding without a record (a line that is not JSON, an element `unnest` could
        // not map) belongs to the file being read, else to the file its location names.
        let file =
            (record?.origin.source ?? currentSource).flatMap(inputFiles.number(of:))
            ?? finding?.location.map(\.fileNumber) ?? -1
        sequence += 1
        return EntryPlace(phase: phase, file: file, sequence: sequence)
    }

    /// Puts back what partial runs set aside, in their merged order (a sharded run's finish).
    func restore(
        rejects: [Rejection], warnings: [Warning], stepStats: [StepStat], ingested: [CollectionID: Int],
        appendedIn: [CollectionID: Int], appendedOut: [CollectionID: Int], incomplete: [IncompleteSource]
    ) {
        self.rejects = rejects
        self.warnings = warnings
        self.stepStats = stepStats
        self.ingested = ingested
        self.appendedIn = appendedIn
        self.appendedOut = appendedOut
        self.incomplete = incomplete
    }

    /// Lets the input files' pages that findings read back leave memory again (after
    /// each step), so memory holds records, not inputs.
    func releaseSourcePages() {
        for source in sources { source.bytes.releaseResidentPages() }
    }

    /// `memoryLimit`: bytes of records held in memory before the oldest are spilled to
    /// `spillFolder` (default: half the machine's memory, a folder under the system's
    /// temporary folder). `holdsDuplicates`: every duplicate stays a value in `duplicates`,
    /// whatever the limit.
    public init(
        schemas: [CollectionID: Schema], threads: Threads, memoryLimit: Int? = nil, spillFolder: String? = nil,
        holdsDuplicates: Bool = false
    ) {
        self.schemas = schemas
        self.threads = threads
        spill = SpillSpace(
            limit: memoryLimit ?? SpillSpace.defaultLimit(),
            folder: spillFolder
                ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                    "seedforge-spill-\(getpid())-\(UUID().uuidString)"
                ).path,
            threads: threads)
        spill.sources = { [unowned self] in self.sources }
        spill.afterBatch = { [unowned self] in self.releaseSourcePages() }
        duplicateLog = SideLog(
            budget: holdsDuplicates ? .max : Self.sideLogBudget(limit: spill.limit), size: Self.size(of:),
            render: { [unowned self] in SideOutputs.render($0, paths: self.inputFiles, into: &$1) },
            newFile: { [unowned self] in try self.spill.newFile() }, threads: threads)
    }

    /// Bytes of duplicates held as values before a dedupe past the memory limit renders
    /// them: a sixteenth of the limit, at least 1 MiB (a few thousand duplicates).
    static func sideLogBudget(limit: Int) -> Int { max(limit / 16, 1 << 20) }

    /// About the bytes a duplicate held takes: its fields, its record's row and its key's parts.
    static func size(of duplicate: Duplicate) -> Int {
        var bytes = MemoryLayout<Duplicate>.stride + duplicate.record.row.allocatedBytes
        if case .array(let parts) = duplicate.key { bytes += 32 + parts.count * MemoryLayout<Value>.stride }
        return bytes
    }

    /// Every record of a collection, in order (read back from disk when spilled).
    public func records(_ collection: CollectionID) -> [Record] { stores[collection]?.all() ?? [] }

    /// How many records a collection holds.
    public func count(_ collection: CollectionID) -> Int { stores[collection]?.count ?? 0 }

    /// The store of a collection (made empty when it has none yet).
    func store(_ collection: CollectionID) -> RecordStore {
        if let store = stores[collection] { return store }
        let store = RecordStore(width: schemas[collection]?.fields.count ?? 0, space: spill)
        stores[collection] = store
        return store
    }

    /// Replaces a collection's records (a step's result).
    public func setRecords(_ collection: CollectionID, _ records: [Record]) {
        store(collection).replace(with: records)
    }

    /// Calls `body` with every record of a collection, in order, without holding a
    /// spilled collection whole.
    func forEachRecord(_ collection: CollectionID, _ body: (Record) throws -> Void) throws {
        try stores[collection]?.forEachBatch { batch in
            for record in batch { try body(record) }
        }
    }

    /// Takes a collection's records out, leaving it empty.
    func takeRecords(_ collection: CollectionID) -> [Record] { stores[collection]?.take() ?? [] }

    public func id(of record: Record, in collection: CollectionID) -> Value? {
        guard let field = schemas[collection]?.idField else { return nil }
        let value = record[field]
        return value.isNull ? nil : value
    }

    public func reject(_ record: Record, in collection: CollectionID, findings: [Finding], step: String) {
        rejects.append(
            Rejection(
                collection: collection, record: record, id: id(of: record, in: collection), findings: findings,
                step: step, place: place(of: record, findings.first)))
    }

    /// A source record that could not even become a record (not an object, bad JSON line).
    public func rejectUnreadable(in collection: CollectionID, finding: Finding, step: String) {
        rejects.append(
            Rejection(
                collection: collection, record: nil, id: nil, findings: [finding], step: step,
                place: place(of: nil, finding)))
    }

    /// Settles a record's findings, the one rule every stage follows: warnings are
    /// reported and leave the record kept; any error rejects it with all its errors (a
    /// record that could not be read at all with the first). `step` labels a finding's
    /// report. Returns whether the record is kept.
    func settle(_ record: Record?, findings: [Finding], in collection: CollectionID, step: (Finding) -> String) -> Bool
    {
        for finding in findings where finding.severity == .warning {
            warn(finding, record: record, in: collection, step: step(finding))
        }
        let errors = findings.filter { $0.severity == .error }
        guard let record else {
            // A source hands over no record only with the error that says why.
            assert(!errors.isEmpty, "an unreadable record without an error finding")
            if let first = errors.first { rejectUnreadable(in: collection, finding: first, step: step(first)) }
            return false
        }
        if errors.isEmpty { return true }
        reject(record, in: collection, findings: errors, step: step(errors[0]))
        return false
    }

    /// Logs a duplicate. `pastLimit`: removed by a dedupe of a collection past the memory
    /// limit (after ingest, every input's path settled), whose log may render as it goes.
    public func removeDuplicate(
        _ record: Record, in collection: CollectionID, winner: Record, key: Value, step: String, filled: [String] = [],
        distanceKm: Double? = nil, pastLimit: Bool = false
    ) {
        log(
            duplicate(
                record, in: collection, winner: winner, key: key, step: step, filled: filled, distanceKm: distanceKm),
            pastLimit: pastLimit)
    }

    /// The entry `removeDuplicate` logs; safe to make on any thread (it reads the schemas
    /// and the records' files).
    func duplicate(
        _ record: Record, in collection: CollectionID, winner: Record, key: Value, step: String, filled: [String] = [],
        distanceKm: Double? = nil
    ) -> Duplicate {
        Duplicate(
            collection: collection, record: record, id: id(of: record, in: collection),
            winnerID: id(of: winner, in: collection), winnerLocation: winner.origin.location, key: key, step: step,
            filled: filled, distanceKm: distanceKm)
    }

    /// Logs a duplicate made by `duplicate`.
    func log(_ duplicate: Duplicate, pastLimit: Bool = false) {
        duplicateLog.append(duplicate, pastLimit: pastLimit)
        duplicatesIn[duplicate.collection, default: 0] += 1
    }

    public func warn(_ finding: Finding, record: Record?, in collection: CollectionID, step: String) {
        warnings.append(
            Warning(
                collection: collection, id: record.flatMap { id(of: $0, in: collection) }, finding: finding, step: step,
                place: place(of: record, finding)))
    }

    /// Puts the records of a paginated source in page-number order (files are read in
    /// natural name order, which may differ from the pages' own numbers).
    func orderByPage(_ collection: CollectionID, pages: [PageMetadata]) throws {
        let number = Dictionary(uniqueKeysWithValues: pages.map { ($0.fileNumber, $0.number) })
        let store = store(collection)
        if store.isSpilled {
            // Sorted runs on disk by page number; ties keep input order, as below.
            return try SortedRuns.sort(store, space: spill, threads: threads, reading: []) { record, key in
                key.appendNumber(Double(number[record.origin.source.fileNumber] ?? 0))
            }
        }
        // A file's records are read one after another: the collection is runs of records of
        // one file each, put in page order as runs (ties in input order), not record by record.
        let records = store.resident
        var runs: [(page: Int, range: Range<Int>)] = []
        var start = 0
        while start < records.count {
            let file = records[start].origin.source.fileNumber
            var end = start + 1
            while end < records.count, records[end].origin.source.fileNumber == file { end += 1 }
            runs.append((number[file] ?? 0, start..<end))
            start = end
        }
        guard zip(runs, runs.dropFirst()).contains(where: { $0.page > $1.page }) else { return }
        let order = runs.indices.sorted { runs[$0].page != runs[$1].page ? runs[$0].page < runs[$1].page : $0 < $1 }
        var ordered: [Record] = []
        ordered.reserveCapacity(records.count)
        for run in order { ordered += records[runs[run].range] }
        setRecords(collection, ordered)
    }

    public func rejectedCount(_ collection: CollectionID) -> Int {
        rejects.lazy.filter { $0.collection == collection }.count
    }
    public func duplicateCount(_ collection: CollectionID) -> Int { duplicatesIn[collection] ?? 0 }
}
