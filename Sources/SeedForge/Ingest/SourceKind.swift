/// A kind of source (`kind:` of an entry under `sources:`): reads one input file and hands
/// each raw record, with its provenance, to the sink.
public protocol SourceKind: Sendable {
    static var spec: KindSpec { get }
    init(config: ConfigMap) throws
    /// Reads one file. Throws `SourceError` when the file as a whole cannot be read
    /// (the run fails and the previous outputs stay); a single bad record goes to the sink.
    /// Returns what the file says about its place in a paginated dump, if anything.
    func read(_ text: SourceText, into sink: inout IngestSink) throws -> PageMetadata?
    /// A file of this source's shape holding `records` (for pipeline tests' inline input).
    func document(holding records: [Value]) -> [UInt8]
    /// The fields a source declares; most kinds take `name: type` / `{type, from}`.
    static func declaredFields(
        _ config: ConfigMap, what: String
    ) throws -> (fields: [FieldSpec], errors: [DefinitionError])
    /// For sources that follow links from page to page: the next file after `text`, or nil.
    func nextFile(after text: SourceText, path: String) -> NextPage?
    /// The most pages one run follows from the start page.
    var followLimit: Int { get }
    /// Whether the source reads more files than its `path` names (it follows links).
    var followsLinks: Bool { get }
    /// Whether the source can read the records that start in a byte range of a file
    /// (`IngestSink.byteRange`), so a large file can be split between shards.
    var readsByteRanges: Bool { get }
    /// Whether the collection's records are put in page order after the whole source is
    /// read (files that say which page of a paginated dump they hold): until then they are
    /// in file order, so no step may look at them as they are read.
    var ordersRecordsByPage: Bool { get }
    /// What a link to a page that was not saved does (`on-missing-page:`).
    var onMissingPage: FollowCheck.MissingPage { get }
    /// Whether pipeline tests may give this source inline records (else fixture files).
    var acceptsInlineRecords: Bool { get }
}

extension SourceKind {
    public static func declaredFields(
        _ config: ConfigMap, what: String
    ) throws -> (fields: [FieldSpec], errors: [DefinitionError]) {
        try FieldMapping.load(config, what: what)
    }

    public func nextFile(after text: SourceText, path: String) -> NextPage? { nil }
    public var followLimit: Int { 1000 }
    public var followsLinks: Bool { false }
    public var readsByteRanges: Bool { false }
    public var ordersRecordsByPage: Bool { false }
    public var onMissingPage: FollowCheck.MissingPage { .fail }
    public var acceptsInlineRecords: Bool { true }
}

/// Where a page says the next one is: a file to read (checked by `FollowCheck` before it
/// is; `link` is where the page names it, nil for the page as a whole), a link that cannot
/// name a saved file (a warning: following stops there), or a broken chain that loses
/// records (an error at the link: the run fails).
public enum NextPage: Sendable {
    case file(String, link: Location?)
    case refused(String)
    case failed(SourceError)
}

/// Keys every source accepts; the kind adds its own.
enum SourceKeys {
    static let common: [KeySpec] = [
        KeySpec("kind", required: true, #"`json`, `ndjson`, `csv`, `tsv` or `html`"#),
        KeySpec(
            "path", required: true,
            #"a file or a glob, relative to the pipeline's folder; globs are read in natural order (`page-2` before `page-10`); no match is a definition error. Gzip-compressed files (`.json.gz`, several members or zero padding allowed) are recognised by their content and read as they are; lines and columns in messages count in the decompressed text"#
        ),
        KeySpec(
            "fields", required: true,
            #"`name: type` or `name: {type: T, from: /json/pointer}` (for `html` sources see [HTML pages](#html-pages); for `csv` and `tsv`, `from` names a column: see [`csv`](#ingest-source-kinds)). Types: `string`, `number`, `decimal` (an exact decimal, such as a price; a JSON number is taken at its shortest round-trip digits, exact up to 15 significant digits: `40.50` is `40.5`), `integer` (an integral float such as `136256.0` is accepted and stored as an integer), `boolean`, `array`, `object`, `any`. A missing value is null; a value of another type rejects the record with rule `type`"#
        ),
        KeySpec("id", #"the field that identifies records in rejects and the duplicates log"#),
        KeySpec(
            "unknown-fields", #"keys of a record not declared in `fields`: `ignore` (default), `warn`, or `reject`"#),
        KeySpec(
            "reference",
            #"`true`: reference data that steps look records up in (the cities a `nearest` step searches), not a dataset of its own: it needs no output, its records are counted as `reference` in the manifest's accounting, and its rejects are still reported"#
        ),
    ]
}

/// A source file that cannot be read as a whole: a syntax error in a JSON document,
/// an empty file, the wrong top-level shape. Names the file, line and column.
public struct SourceError: Error, Sendable, CustomStringConvertible {
    public let location: Location
    public let message: String
    /// The rule code reports show: `json-syntax` for a syntax error, `source` otherwise
    /// (an empty file, the wrong top-level shape, broken page sequence or gzip data, a
    /// file, value or record over the pipeline's `limits`).
    public let rule: RuleCode

    public init(location: Location, message: String, rule: RuleCode = .source) {
        self.location = location
        self.message = message
        self.rule = rule
    }

    init(_ text: SourceText, offset: Int, _ message: String, pointer: String = "", rule: RuleCode = .source) {
        self.init(location: text.location(ofOffset: offset, pointer: pointer), message: message, rule: rule)
    }

    /// The failure as a finding, for validation reports.
    public var finding: Finding { Finding(rule: rule, message: message, location: location) }

    public var description: String { "\(location.description): error: \(message)" }
}

/// Where a source puts what it reads: records are mapped and typed on arrival; records
/// that fail are rejected with their findings, so every record read is accounted for.
public struct IngestSink {
    let collection: CollectionID
    public let mapping: FieldMapping
    let state: RunState
    /// How many threads a source may parse with.
    public let threads: Threads
    /// The pipeline's limits on one value and one record.
    public let limits: InputLimits
    public private(set) var count = 0
    /// Read only the records that start in this byte range of the file (a shard's part of
    /// a large file, see `Shard`); nil: all of them.
    public internal(set) var byteRange: Range<Int>?
    /// The index in the file of the first record read, when a source reads a byte range:
    /// `merge` numbers records on from it.
    public var firstIndex = 0
    /// The file's SHA-256, taken by the first `merge` beside its own work, on another
    /// thread when one is free (at 1M CSV rows, 67 MB: about 40 ms, as long as the merge,
    /// both of which the other threads waited on); a source that reads the file a window
    /// at a time takes it a window at a time instead (`InputDigest.advance`) and sets this
    /// to nil.
    var alongside: InputFile.InputDigest?
    /// An error of this source fails the run (a run, not validation, which reports it and
    /// reads the next file): a large JSON file's records may then be taken as it is parsed,
    /// its syntax checked by that parse, not by a pass of its own before it (`JSONSource`).
    var failsRun = false

    init(collection: CollectionID, mapping: FieldMapping, state: RunState, threads: Threads, limits: InputLimits) {
        self.collection = collection
        self.mapping = mapping
        self.state = state
        self.threads = threads
        self.limits = limits
    }

    /// Maps and keeps a record, or rejects it with its findings. `rejectedFor` is a
    /// finding the source made itself (a key written twice), which rejects the record
    /// whatever its fields hold.
    public mutating func accept(
        _ raw: Value, origin: Origin, rejectedFor sourceFinding: Finding? = nil, also more: [Finding] = []
    ) {
        if let record = accepted(raw, origin: origin, rejectedFor: sourceFinding, also: more) {
            state.store(collection).append(record)
        }
    }

    /// `accept`'s record, to be stored by the caller; nil when it was rejected.
    private mutating func accepted(
        _ raw: Value, origin: Origin, rejectedFor sourceFinding: Finding? = nil, also more: [Finding] = []
    ) -> Record? {
        count += 1
        var (record, findings) = mapping.map(raw, origin: origin)
        findings.insert(contentsOf: more, at: 0)
        if let sourceFinding { findings.insert(sourceFinding, at: 0) }
        return state.settle(record, findings: findings, in: collection, step: { _ in "ingest" }) ? record : nil
    }

    /// A finding about a whole file (an HTML page without items, a charset problem): a
    /// warning, since no record is lost by it.
    public func warnFile(_ finding: Finding) {
        state.warn(finding, record: nil, in: collection, step: "ingest")
    }

    /// A record that could not be parsed at all (a bad NDJSON line).
    public mutating func unreadable(_ finding: Finding) {
        count += 1
        state.rejectUnreadable(in: collection, finding: finding, step: "ingest")
    }

    /// The size of the windows a source should read an array of `bytes` in, so that the
    /// records it holds at once stay well within the memory limit; nil when the whole
    /// array may be parsed at once (records take several times their text in memory).
    public func windowBytes(forArrayOf bytes: Int) -> Int? {
        let limit = state.spill.limit
        return bytes > limit / 4 ? max(1 << 20, limit / 32) : nil
    }

    /// Takes the entries of chunks parsed in parallel, in order: gives records their
    /// index in the file, and maps again, now with that index, the few records that had
    /// findings, so every location and pointer is the one a sequential read gives. A file
    /// read in windows is merged window by window: indexes go on from the records taken.
    ///
    /// Records are moved out of the chunks, not copied: each chunk is taken out of the
    /// list, so nothing else holds it, and each run of plain records is moved from its
    /// buffer into the store (a copy cost a retain of each record's values, and the
    /// chunk's release a release of each, touching every record twice on the thread that
    /// merges). With work to do `alongside` (the input's hash), the two run as two tasks,
    /// either of which may take a helper thread; only the merging task touches `self`.
    ///
    /// Throws when the records would number past `Origin.indexLimit` in `text`.
    public mutating func merge(_ chunks: consuming [[IngestEntry]], of text: SourceText) throws {
        var chunks = chunks
        let total = chunks.reduce(0) { $0 + $1.count }
        guard count + firstIndex + total <= Origin.indexLimit else {
            throw SourceError(
                text, offset: 0,
                "more than \(Origin.indexLimit) records in one file (a record's place in its file is kept in 32 bits): split the file"
            )
        }
        let work = alongside.map { digest in { _ = digest.value } }
        alongside = nil
        if takeSideBySide(&chunks, total: total, alongside: work) { return }
        guard let work else { return takeChunks(&chunks) }
        _ = threads.run(2) { task in
            if task == 0 { takeChunks(&chunks) } else { work() }
        }
    }

    /// Fewer records than this are taken on one thread: handing chunks to the threads costs
    /// some tens of microseconds, what moving a few thousand records takes.
    static let sideBySideRecords = 8_192

    /// `takeChunks` on every thread, when the records fit in memory: the entries that are
    /// not plain records (a few rows with findings) are settled first, in order, on this
    /// thread, which gives every record its place in the store; then each chunk's records
    /// are moved into their places on any thread, beside the `alongside` work, into an
    /// array the store adopts. At 1M CSV rows the move (and the page faults of the store's
    /// 48 MB of new memory) took about 30 ms on one thread while the other hashed the
    /// input or waited. False (nothing taken) when the store holds records already, when
    /// no record could be sampled for its size (every entry is mapped only when taken), or
    /// when the records might reach the memory limit: the limit is then checked as they
    /// are appended one batch at a time, and spills happen where they always did.
    private mutating func takeSideBySide(
        _ chunks: inout [[IngestEntry]], total: Int, alongside work: (() -> Void)?
    ) -> Bool {
        guard threads.count > 1, total >= Self.sideBySideRecords else { return false }
        let store = state.store(collection)
        guard let average = Self.averageRowBytes(of: chunks), store.hasRoom(forRecords: total, averageBytes: average)
        else { return false }
        // The plan: where each chunk's runs of plain records go, and the records the other
        // entries left (settled here, in order: their rejects and warnings keep their order).
        var runs: [[(entries: Range<Int>, place: Int)]] = Array(repeating: [], count: chunks.count)
        var bases: [Int] = []
        var others: [(place: Int, record: Record)] = []
        var places = 0
        var base = count + firstIndex
        for index in chunks.indices {
            bases.append(base)
            let entries = chunks[index]
            var at = 0
            while at < entries.count {
                var end = at
                while end < entries.count, case .record = entries[end] { end += 1 }
                if end > at {
                    runs[index].append((at..<end, places))
                    places += end - at
                    at = end
                    continue
                }
                if let record = settled(entries[at], base: base) {
                    others.append((places, record))
                    places += 1
                }
                at += 1
            }
            base += entries.count
        }
        let plain = places - others.count
        let records = [Record](unsafeUninitializedCapacity: places) { out, initialized in
            nonisolated(unsafe) let out = out
            for (place, record) in others { (out.baseAddress! + place).initialize(to: record) }
            chunks.withUnsafeMutableBufferPointer { chunks in
                nonisolated(unsafe) let chunks = chunks
                // The `alongside` work (the input's hash, the longest task: about 40 ms at
                // 1M CSV rows, each chunk's move about 15) is task 0, so it starts at once
                // rather than after a chunk and ends the merge alone on one thread.
                let leading = work == nil ? 0 : 1
                _ = threads.run(chunks.count + leading) { task in
                    if task < leading { return work?() ?? () }
                    let task = task - leading
                    let base = bases[task]
                    chunks[task].withUnsafeMutableBufferPointer { entries in
                        guard let first = runs[task].first else { return }
                        guard case .record(let sample) = entries[first.entries.lowerBound] else {
                            preconditionFailure("not a plain record")
                        }
                        // Each place a record leaves gets this chunk's own record of no
                        // values (the chunk still destroys its entries; one made per chunk,
                        // so no two threads count references on the same one).
                        let emptied = IngestEntry.record(Record(values: [], origin: sample.origin))
                        for run in runs[task] {
                            var target = out.baseAddress! + run.place
                            for position in run.entries {
                                target.initialize(
                                    to: Self.moveRecord(
                                        at: entries.baseAddress! + position, leaving: emptied, base: base))
                                target += 1
                            }
                        }
                    }
                    // The chunk goes here, on this thread: a million entries to destroy.
                    chunks[task] = []
                }
            }
            initialized = places
        }
        count += plain
        store.adopt(records)
        return true
    }

    /// The average bytes of a row among some records of the chunks (plain ones, and those
    /// typed with findings); nil when none was found to sample (entries mapped only when
    /// taken): then nothing says they fit.
    private static func averageRowBytes(of chunks: [[IngestEntry]]) -> Int? {
        var bytes = 0
        var sampled = 0
        for chunk in chunks {
            let step = max(1, chunk.count / 8)
            for position in stride(from: 0, to: chunk.count, by: step) {
                switch chunk[position] {
                case .record(let record), .mapped(let record, _):
                    bytes += record.row.allocatedBytes
                    sampled += 1
                default:
                    continue
                }
            }
        }
        return sampled == 0 ? nil : bytes / sampled
    }

    /// `merge`'s own work: the chunks' records moved into the store, in order.
    private mutating func takeChunks(_ chunks: inout [[IngestEntry]]) {
        var base = count + firstIndex
        // Looked up once, not once a record (a hash of the collection's name each time).
        let store = state.store(collection)
        store.reserve(chunks.reduce(0) { $0 + $1.count })
        for index in chunks.indices {
            var chunk: [IngestEntry] = []
            swap(&chunk, &chunks[index])
            chunk.withUnsafeMutableBufferPointer { entries in
                var at = 0
                while at < entries.count {
                    var end = at
                    while end < entries.count, case .record = entries[end] { end += 1 }
                    guard end > at else {
                        take(entries[at], base: base, into: store)
                        at += 1
                        continue
                    }
                    var next = entries.baseAddress! + at
                    let base = base
                    // The chunk still destroys its entries: each record moved out leaves a
                    // record of no values (the empty array is shared and never freed, so
                    // nothing is released for it).
                    guard case .record(let firstRecord) = entries[at] else { preconditionFailure("not a plain record") }
                    let emptied = IngestEntry.record(Record(values: [], origin: firstRecord.origin))
                    store.append(count: end - at) {
                        defer { next += 1 }
                        return Self.moveRecord(at: next, leaving: emptied, base: base)
                    }
                    count += end - at
                    at = end
                }
            }
            base += chunk.count
        }
    }

    /// Moves the plain record out of a chunk's entry, numbered on from `base`, leaving
    /// `emptied` (a record of no values) in its place for the chunk to destroy.
    @inline(__always)
    private static func moveRecord(
        at entry: UnsafeMutablePointer<IngestEntry>, leaving emptied: IngestEntry, base: Int
    ) -> Record {
        guard case .record(var record) = entry.move() else { preconditionFailure("not a plain record") }
        entry.initialize(to: emptied)
        record.origin.index += base
        return record
    }

    /// Takes one entry of a chunk whose records are numbered on from `base`.
    private mutating func take(_ entry: IngestEntry, base: Int, into store: RecordStore) {
        if let record = settled(entry, base: base) { store.append(record) }
    }

    /// The record one entry of a chunk gives, numbered on from `base`, to be stored by the
    /// caller; nil when it was rejected (or could not be read).
    private mutating func settled(_ entry: IngestEntry, base: Int) -> Record? {
        switch entry {
        case .record(var record):
            record.origin.index += base
            count += 1
            return record
        case .deferred(let raw, var origin, let duplicateKey):
            origin.index += base
            let finding = duplicateKey.map { JSONSource.duplicateKey(origin.source, at: $0, origin: origin) }
            return accepted(raw, origin: origin, rejectedFor: finding)
        case .withFindings(let raw, var origin, let findings):
            origin.index += base
            return accepted(raw, origin: origin, also: findings)
        case .mapped(var record, let findings):
            record.origin.index += base
            count += 1
            return state.settle(record, findings: findings, in: collection, step: { _ in "ingest" }) ? record : nil
        case .unreadable(let finding):
            unreadable(finding)
            return nil
        }
    }
}

/// A source whose files can be read independently on several threads (each file's
/// records and page findings are extracted, then taken in file order).
public protocol PagewiseSource: SourceKind {
    var readsPagesInParallel: Bool { get }
    func extractPage(_ text: SourceText, mapping: FieldMapping, limits: InputLimits) -> ExtractedPage
}

/// What one file gave: its records (and findings about them) and findings about the file.
public struct ExtractedPage: Sendable {
    public var entries: [IngestEntry] = []
    public var fileFindings: [Finding] = []
    /// A page over one of the pipeline's limits: it fails as a whole (no entries).
    public var failure: SourceError?

    /// The entries, leaving none: the caller holds the only reference to them, so
    /// `IngestSink.merge` can move records out of them.
    mutating func takeEntries() -> [IngestEntry] {
        var taken: [IngestEntry] = []
        swap(&taken, &entries)
        return taken
    }
}

extension IngestSink {
    /// Takes an extracted page: its file findings as warnings, its records in order.
    public mutating func take(_ page: consuming ExtractedPage, of text: SourceText) throws {
        for finding in page.fileFindings { warnFile(finding) }
        try merge([page.takeEntries()], of: text)
    }
}

/// One element read by a chunk of a parallel parse, before its index in the file is known.
public enum IngestEntry: Sendable {
    /// A record that mapped without any finding.
    case record(Record)
    /// A record with findings (or a repeated key at this offset): mapped again at merge.
    /// (Indirect, as the two cases below: a value and an origin beside each other made
    /// every entry 64 bytes, against 48 for the largest case left, a record and its
    /// findings: 16 MB less to take at 1M rows, and all but a few entries are records.)
    indirect case deferred(Value, Origin, duplicateKey: Int?)
    /// A record with findings its source made itself (an HTML field that did not convert).
    indirect case withFindings(Value, Origin, [Finding])
    /// A record its source typed itself (a row of delimited text), with its findings.
    case mapped(Record, [Finding])
    /// A record that could not be read at all (a row with bad quoting), with why.
    /// (Indirect: a finding is large, and most entries of a file are plain records.)
    indirect case unreadable(Finding)

    public static func make(_ raw: Value, origin: Origin, duplicateKey: Int?, mapping: FieldMapping) -> IngestEntry {
        if duplicateKey == nil, mapping.isClean(raw), let record = mapping.map(raw, origin: origin).record {
            return .record(record)
        }
        return .deferred(raw, origin, duplicateKey: duplicateKey)
    }
}
