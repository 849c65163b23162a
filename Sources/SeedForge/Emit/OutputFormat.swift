import CSeedForgeSupport
import Foundation

/// A file format a collection can be written in (`format:` of an entry under `outputs:`).
public protocol OutputFormat: Sendable {
    static var spec: KindSpec { get }
    /// File name endings that select this format when `format:` is left out.
    static var extensions: [String] { get }
    /// Reads the format's own keys. `collection` is the collection being written.
    init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws
    /// Writes the records: one file at `out.file`, or a folder of files under it.
    func write(_ records: OutputRecords, fields: [FieldSpec], ids: [FieldID], into out: OutputWriter) throws
    /// How many files the output makes for `records` records (outputs making many are
    /// started before the others).
    func files(records: Int) -> Int
    /// The names of the files a folder output creates one by one inside its folder for
    /// `records` records, in the order it writes them (empty: none, or not known ahead). A
    /// first run creates them empty while the ingest and the steps run (`FilesAhead`), for
    /// the records read so far: the names for more records begin with those for fewer.
    func fileNames(records: Int) -> [String]
    /// Whether the output's work is one thread's from its first record to its last and
    /// the longest of the outputs per record (SQLite: the inserts and the index sorts of
    /// one connection): it then starts before the comparison and the other outputs, whose
    /// pieces a thread done with it joins (started after them, it ran alone at the end).
    var startsFirst: Bool { get }
}

extension OutputFormat {
    public func files(records: Int) -> Int { 1 }
    public func fileNames(records: Int) -> [String] { [] }
    public var startsFirst: Bool { false }

    /// Writes records held in memory.
    public func write(_ records: [Record], fields: [FieldSpec], ids: [FieldID], into out: OutputWriter) throws {
        try write(OutputRecords(records), fields: fields, ids: ids, into: out)
    }
}

/// A format whose records are JSON objects (json, ndjson, pages): its `fields:` may write a
/// field under another name or at a JSON Pointer (see `FieldLayout`). The loader sets the
/// compiled layout; nil writes every field under its own name.
public protocol StructuredFormat: OutputFormat {
    var layout: FieldLayout? { get set }
}

/// A format written as one file, record by record: a head, the records' bytes, a tail.
/// Records are rendered in ranges on several threads and written in order as they are
/// ready, so the file is never held whole in memory and its bytes do not depend on the
/// thread count. Most formats are this simple.
public protocol SingleFileFormat: OutputFormat {
    /// What comes before the records of a file holding `count` records.
    func head(count: Int, fields: [FieldSpec]) -> [UInt8]
    /// The bytes of consecutive records; `first` says whether they start the file's records.
    func render(_ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID], first: Bool) -> [UInt8]
    /// What comes after the records.
    func tail(count: Int) -> [UInt8]
}

extension SingleFileFormat {
    public func head(count: Int, fields: [FieldSpec]) -> [UInt8] { [] }
    public func tail(count: Int) -> [UInt8] { [] }

    /// Records rendered and written per batch: an output holds two at once (one being
    /// written, the next being rendered: `RenderAhead`). Batches of 65,536 held about 25 MiB
    /// of rendered cities and snapshot lines at the reference job's 240k peak (median peak
    /// 117 MiB, 103 MiB with 16,384; CPU at 1M unchanged: 1.004x, paired runs, medians of 5).
    /// 8,192 since the sort's peak went below the outputs' (issue 11): their phase 87.9 to
    /// 88.9 against 85.5 MiB at 240k (resident memory sampled every 5 ms).
    static var batchSize: Int { 8_192 }

    public func write(_ records: OutputRecords, fields: [FieldSpec], ids: [FieldID], into out: OutputWriter) throws {
        try write(records, fields: fields, into: out, beside: { _ in }) { slice, first in
            (render(slice, fields: fields, ids: ids, first: first), [])
        }
    }

    /// Writes the head, the records rendered by `render` (consecutive records and whether
    /// they start the file's records, to their bytes and the bytes of a rendering made
    /// beside them), the tail; the bytes beside go to `beside`, in the records' order.
    func write(
        _ records: OutputRecords, fields: [FieldSpec], into out: OutputWriter, beside: ([UInt8]) throws -> Void,
        render: (ArraySlice<Record>, Bool) -> (bytes: [UInt8], beside: [UInt8])
    ) throws {
        try out.stream { file in
            try file.write(head(count: records.count, fields: fields))
            func write(_ pieces: [(bytes: [UInt8], beside: [UInt8])]) throws {
                for piece in pieces {
                    try file.write(piece.bytes)
                    if !piece.beside.isEmpty { try beside(piece.beside) }
                }
            }
            var ahead = RenderAhead<(bytes: [UInt8], beside: [UInt8])>(threads: out.threads)
            // Position in the file of the batch's first record.
            var written = 0
            try records.forEachBatch { batch in
                var start = batch.startIndex
                while start < batch.endIndex {
                    let end = min(start + Self.batchSize, batch.endIndex)
                    let first = written + (start - batch.startIndex)
                    try ahead.batch(
                        end - start,
                        render: { range in
                            render(
                                batch[(start + range.lowerBound)..<(start + range.upperBound)],
                                first + range.lowerBound == 0)
                        }, write: write)
                    start = end
                }
                written += batch.count
            }
            try ahead.finish(write: write)
            try file.write(tail(count: records.count))
        }
    }

    /// The whole file's bytes at once (a page of `pages`, tests, small files).
    public func render(_ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID]) -> [UInt8] {
        head(count: records.count, fields: fields) + render(records, fields: fields, ids: ids, first: true)
            + tail(count: records.count)
    }

    public func render(_ records: [Record], fields: [FieldSpec], ids: [FieldID]) -> [UInt8] {
        render(records[...], fields: fields, ids: ids)
    }
}

/// A single-file format that renders each record with a `RecordFrame` (json and ndjson
/// without a layout): another compact rendering of the same records, the snapshot's lines,
/// can be made beside its own from the same values (`RecordFrame.Beside`).
protocol FramedFormat: SingleFileFormat {
    /// The frame records of `fields` are rendered with; nil when they are not (a layout
    /// moves fields).
    func frame(fields: [FieldSpec]) -> RecordFrame?
}

extension FramedFormat {
    /// Writes the records as `write(_:fields:ids:into:)` does, and hands `lines` the records
    /// rendered by `beside` too, a piece at a time, in order.
    func write(
        _ records: OutputRecords, fields: [FieldSpec], ids: [FieldID], into out: OutputWriter,
        beside: RecordFrame.Beside, lines: ([UInt8]) throws -> Void
    ) throws {
        guard let frame = frame(fields: fields) else {
            throw InternalFailure("\(out.file) renders no frame to write the snapshot beside")
        }
        try write(records, fields: fields, into: out, beside: lines) { slice, first in
            var bytes = JSONWriter()
            var besideBytes = JSONWriter()
            frame.render(slice, ids: ids, first: first, into: &bytes, beside: beside, into: &besideBytes)
            return (bytes.bytes, besideBytes.bytes)
        }
    }
}

/// Where an output writes: the dataset's staging folder, under the output's `file`.
/// Records what it wrote for the manifest.
public final class OutputWriter {
    let folder: OutputDirectory
    public let file: String
    /// Every output of the pipeline (an index may need to know about the pages it points to).
    public let outputs: [OutputDefinition]
    /// Threads a format may render with.
    public let threads: Threads
    public private(set) var written: [(file: String, bytes: Int, sha256: String)] = []

    init(folder: OutputDirectory, file: String, outputs: [OutputDefinition], threads: Threads) {
        self.folder = folder
        self.file = file
        self.outputs = outputs
        self.threads = threads
    }

    /// `file`, or `file/subpath` for formats that make a folder.
    private func name(_ subpath: String?) -> String { subpath.map { "\(file)/\($0)" } ?? file }

    /// Writes bytes to `file`, or to `file/subpath` for formats that make a folder.
    public func write(_ bytes: [UInt8], to subpath: String? = nil) throws {
        let name = name(subpath)
        try folder.write(bytes, to: name)
        written.append((name, bytes.count, SHA256.hex(bytes)))
    }

    /// Writes `count` files of a folder format, `render(i)` giving the i-th file's name
    /// inside the folder `file` and its bytes, rendered, written and hashed on up to
    /// `threads` threads; they are recorded in order, so the manifest is the same for any
    /// thread count. A file the previous dataset holds with the same bytes is linked, not
    /// written again.
    ///
    /// The files go in pieces of `filesPerPiece`, a loop other threads join when they are
    /// done with their own work (`Threads.run`'s `joinable`): started while the other
    /// outputs held every thread, the shipped cities' 23,256 pages were written on one
    /// thread to the end, the other idle after its outputs.
    public func writeFiles(_ count: Int, render: (Int) -> (subpath: String, bytes: [UInt8])) throws {
        try writeFiles(count, pieces: { $0.map(render) })
    }

    /// Writes `count` files as `writeFiles(_:render:)` does, `pieces(range)` rendering the
    /// files of indexes `range` together (a piece of `filesPerPiece`, the same ranges for
    /// any thread count), in order.
    func writeFiles(_ count: Int, pieces render: (Range<Int>) -> [(subpath: String, bytes: [UInt8])]) throws {
        let folder = try self.folder.folder(file)
        let size = Self.filesPerPiece
        let pieces = (count + size - 1) / size
        let chunks = threads.run(pieces, joinable: true) { piece in
            let range = (piece * size)..<min(count, (piece + 1) * size)
            return Result { () throws -> [(file: String, bytes: Int, sha256: String)] in
                var done: [(file: String, bytes: Int, sha256: String)] = []
                done.reserveCapacity(range.count)
                // The piece's files rendered one after the other before any is created: the
                // records are read while they are warm in the caches, not between the kernel's
                // work on each file.
                for (subpath, bytes) in render(range) {
                    // By its bytes: `String.contains` of a string goes through Foundation's
                    // `CFStringFind` on Linux (about 1% of a shipped first run's pages output).
                    guard !subpath.utf8.contains(UInt8(ascii: "/")) else {
                        throw InternalFailure("\(file): '\(subpath)' is not a file name of the folder")
                    }
                    try folder.writeReusingPrevious(bytes, to: subpath)
                    done.append((name(subpath), bytes.count, SHA256.hex(bytes)))
                }
                return done
            }
        }
        for chunk in chunks { written += try chunk.get() }
        try FaultInjection.point("mid-output")
    }

    /// Files written per piece of `writeFiles`: about 3 ms of work each (a page of 10
    /// cities rendered, created, written and hashed in about 25 µs), so a thread joining
    /// late finds pieces left and the last piece ends soon after the others.
    static let filesPerPiece = 128

    /// Writes `file` (or `file/subpath`) in pieces through `body`, hashing as it goes.
    public func stream(to subpath: String? = nil, _ body: (StagedFile) throws -> Void) throws {
        let name = name(subpath)
        let (bytes, sha256) = try folder.stream(name, body)
        written.append((name, bytes, sha256))
    }

    /// A path in the staging folder for formats that write their one file themselves
    /// (SQLite); call `recordWritten` once the file is complete.
    public func stagingPath() throws -> String {
        let url = folder.staging.appendingPathComponent(file)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        return url.path
    }

    /// The SHA-256 of a single file, or for a folder the SHA-256 of its listing
    /// (`name sha256` lines, in name order), so any change to any file changes it.
    public var digest: String {
        if written.count == 1 { return written[0].sha256 }
        let listing = written.sorted { $0.file < $1.file }.map { "\($0.file) \($0.sha256)\n" }.joined()
        return SHA256.hex(listing.utf8)
    }

    /// Records the file at `stagingPath()` as written: its size and SHA-256, read back a
    /// mebibyte at a time (it was read whole into `Data` and copied into an array: at 240k
    /// cities two copies of a 19 MB SQLite file in memory at the end of that output).
    public func recordWritten() throws {
        let path = folder.staging.appendingPathComponent(file).path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IOFailure("cannot read back \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // The file is complete: the disk may start on it now (without waiting), beside the
        // outputs still being written, as a streamed file's bytes are (`StagedFile`), instead
        // of in the one flush before the swap (the shipped cities' 19.6 MB SQLite file).
        seedforge_start_writeback(fd, 0, 0)
        let digest = SHA256.Stream()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw IOFailure("cannot read back \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            buffer.withUnsafeBufferPointer { digest.update(UnsafeBufferPointer(rebasing: $0[..<count])) }
            total += count
        }
        written.append((file, total, digest.finish()))
    }
}

/// Keys every output accepts.
enum OutputKeys {
    static let common: [KeySpec] = [
        KeySpec(
            "file", required: true,
            #"file name inside the dataset folder; `rejects.ndjson`, `duplicates.ndjson`, `warnings.ndjson`, `changes.ndjson`, `snapshot.ndjson` and `manifest.json` are reserved; sub-folders are allowed (`stats/trips.json`), `..` never"#
        ),
        KeySpec("collection", required: true, #"the collection to write"#),
        KeySpec(
            "format",
            #"`json`, `ndjson`, `csv`, `text`, `sqlite`, `pages` or `prefix-index`; by default from the file's extension (`.json`, `.ndjson`/`.jsonl`, `.csv`, `.txt`, `.sqlite`/`.db`/`.sqlite3`); `pages` and `prefix-index` write folders and must be named"#
        ),
        KeySpec(
            "fields",
            #"the fields to write, in order, each once (default: all fields of the collection, computed ones last). For `json`, `ndjson` and `pages` an entry may also place a field elsewhere, `{field: id, as: _id}` or `{field: latitude, at: /coord/lat}`: see [Output field layout](#output-field-layout)"#
        ),
        KeySpec(
            "fixed-decimals",
            #"`decimal` fields written with exactly this many digits after the point in this output, `{price: 2}`: the amount `54` (from `£54.00`) is written `54.00`, `1299` as `1299.00`, for apps that show prices as text; a value with more digits is rounded half away from zero. The dataset's value stays the exact decimal (other outputs write `54`); in SQLite the text `54.00`. 0 to 10; a field of another type is a definition error"#
        ),
    ]
    /// `fields:` of a format whose records are JSON objects: entries may move fields.
    static let structured: [KeySpec] =
        common.filter { $0.name != "fields" } + [
            KeySpec(
                "fields",
                "the fields to write, in order (default: every field of the collection); an entry is a field name, "
                    + "{field: NAME, as: KEY} to write it under another key, or {field: NAME, at: /json/pointer} to write it "
                    + "inside nested objects and arrays (a whole-number token is an array position: /coordinates/0); "
                    + "a field may be written at several places, two fields at one place are an error")
        ]
    /// The example of json output: the honey shops app's shape, which `fields:` can write.
    static let structuredExample = """
        - file: shops.json                 # the honey shops app: coordinates: [lat, lon], computed ratings last
          collection: shops
          fields:
            - id
            - name
            - rating                       # the seed's own key, next to the computed ones
            - {field: latitude, at: /coordinates/0}
            - {field: longitude, at: /coordinates/1}
            - displayedRating
            - reviewCount
        """
    /// `where:`, for formats that may hold part of a collection (not pages or prefix-index,
    /// whose page numbers and index must cover the whole collection).
    static let filter = KeySpec(
        "where",
        #"write only the records whose fields hold these values: `{category: Food}` or `{category: [Food, Museum]}`, several fields all matching. Values are read as the field's declared type: on a text field `007` and `yes` are the text written, on an integer field numbers compare exactly, a value that cannot be of the type (or an empty list) is a definition error. A filter keeps what matches; the collection itself is unchanged, so other outputs still see every record. A filtered output does not count as writing its collection: each collection still needs one output without `where`. Not allowed on `pages` and `prefix-index` outputs, whose page numbers and index cover the whole collection"#
    )
}

/// One declared output: which collection, which fields, which format, which file.
public struct OutputDefinition: Sendable {
    public let file: String
    public let collection: CollectionID
    public let formatName: String
    public let format: any OutputFormat
    /// The fields written, in `fields:` order (for a structured format a field may appear
    /// more than once, at different places).
    public let fields: [FieldID]
    /// Where a structured format writes each of `fields` (nil: under their own names).
    public let layout: FieldLayout?
    /// `where:`: only records matching it are written (all when it has no condition).
    public let filter: OutputFilter
    /// `fixed-decimals:`: decimal fields at a fixed number of places in this output.
    public var fixedDecimals: FixedDecimals = .none

    /// Whether this output holds every record of its collection.
    public var isComplete: Bool { filter.conditions.isEmpty }

    /// The records this output writes: those matching every `where` condition, with
    /// `fixed-decimals` applied.
    func selected(_ records: [Record]) -> [Record] { fixedDecimals.apply(filter.apply(records)) }

    /// The records this output writes from a collection's store: its `where` and fixed
    /// decimals applied batch by batch when the collection is spilled (a first pass
    /// counts the records a `where` keeps). The pass that writes them reads the store's
    /// `forEachBatch` once (the output phase shares its decoded batches).
    func selected(_ store: RecordStore) throws -> OutputRecords {
        guard store.isSpilled else { return OutputRecords(selected(store.resident)) }
        var count = store.count
        if !filter.conditions.isEmpty {
            count = 0
            // Only the fields the conditions look at are decoded for the count.
            var reading = [Bool](repeating: false, count: store.width)
            for condition in filter.conditions { reading[condition.field.index] = true }
            try store.forEachBatch(reading: reading) { batch in count += filter.apply(Array(batch)).count }
        }
        return OutputRecords(count: count) { body in
            try store.forEachBatch { batch in try body(selected(Array(batch))[...]) }
        }
    }

    /// Where this output writes a field inside each record: its key when that is a
    /// top-level key, else a JSON Pointer (`/coord/lat`); nil when it does not write it.
    /// A key starting with '/' is given as a pointer too, so the two never mix up.
    func place(of field: FieldID, schema: Schema) -> String? {
        guard let position = fields.firstIndex(of: field) else { return nil }
        let place = layout?.places[position] ?? [.key(schema[field].name)]
        if place.count == 1, case .key(let key) = place[0], !key.hasPrefix("/") { return key }
        return FieldPath.pointer(place)
    }

    /// A record as this output writes it: laid out, or its fields under their names.
    func object(_ record: Record, schema: Schema) -> Value {
        layout?.object(record, ids: fields) ?? record.object(fields: fields.map { schema[$0] }, ids: fields)
    }
}

extension Record {
    /// The record as a JSON object holding the given fields, in that order.
    func object(fields: [FieldSpec], ids: [FieldID]) -> Value {
        var object = JSONObject()
        for (spec, id) in zip(fields, ids) { object.appendUnchecked(spec.name, self[id]) }
        return .object(object)
    }
}
