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
    /// Work on the file being read that the first `merge` does beside its own, on another
    /// thread when one is free: taking the file's SHA-256 (at 1M CSV rows, 67 MB: about
    /// 40 ms, as long as the merge, both of which the other threads waited on).
    var alongside: (() -> Void)?

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
        count += 1
        var (record, findings) = mapping.map(raw, origin: origin)
        findings.insert(contentsOf: more, at: 0)
        if let sourceFinding { findings.insert(sourceFinding, at: 0) }
        if state.settle(record, findings: findings, in: collection, step: { _ in "ingest" }), let record {
            state.store(collection).append(record)
        }
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
    public mutating func merge(_ chunks: consuming [[IngestEntry]]) {
        var chunks = chunks
        guard let work = alongside else { return takeChunks(&chunks) }
        alongside = nil
        _ = threads.run(2) { task in
            if task == 0 { takeChunks(&chunks) } else { work() }
        }
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
                        guard case .record(var record) = next.move() else { preconditionFailure("not a plain record") }
                        next.initialize(to: emptied)
                        next += 1
                        record.origin.index += base
                        return record
                    }
                    count += end - at
                    at = end
                }
            }
            base += chunk.count
        }
    }

    /// Takes one entry of a chunk whose records are numbered on from `base`.
    private mutating func take(_ entry: IngestEntry, base: Int, into store: RecordStore) {
        switch entry {
        case .record(var record):
            record.origin.index += base
            count += 1
            store.append(record)
        case .deferred(let raw, var origin, let duplicateKey):
            origin.index += base
            let finding = duplicateKey.map { JSONSource.duplicateKey(origin.source, at: $0, origin: origin) }
            accept(raw, origin: origin, rejectedFor: finding)
        case .withFindings(let raw, var origin, let findings):
            origin.index += base
            accept(raw, origin: origin, also: findings)
        case .mapped(var record, let findings):
            record.origin.index += base
            count += 1
            if state.settle(record, findings: findings, in: collection, step: { _ in "ingest" }) {
                store.append(record)
            }
        case .unreadable(let finding):
            unreadable(finding)
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
    public mutating func take(_ page: consuming ExtractedPage) {
        for finding in page.fileFindings { warnFile(finding) }
        merge([page.takeEntries()])
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
