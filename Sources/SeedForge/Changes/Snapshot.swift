import Foundation

/// `snapshot.ndjson`: the records of every collection a dataset holds, by the pipeline's
/// field names (not the outputs' app-shaped layouts), written by each run into its own
/// dataset folder so that the next run, and `seedforge diff`, can say what changed.
///
/// One JSON value a line: a first line naming the format, then for each collection a
/// header object and one compact array per record, its values in the header's field
/// order, in the dataset's order:
///
///     {"format":"seedforge-snapshot","version":1,"dataset":"cities"}
///     {"collection":"cities","key":["id"],"fields":["id","name","country"],"records":2}
///     [707860,"Hurzuf","UA"]
///     [519188,"Novinki","RU"]
///
/// The writer is deterministic (the project's `JSONWriter`), so equal values are equal
/// bytes: comparing two snapshots compares lines first and looks at fields only where the
/// lines differ.
public struct Snapshot: @unchecked Sendable {
    public static let file = "snapshot.ndjson"
    static let format = "seedforge-snapshot"
    static let version = 1
    /// How far a pass over a snapshot (its line scan, the comparison of two) goes before it
    /// lets the pages behind it go: 1 MiB, not the 32 of an input's passes. The comparison
    /// reads the previous snapshot and the new one side by side while the outputs render,
    /// so at 32 MiB up to 64 MiB of their pages were resident at once at the peak of a
    /// rerun (1M cities: 53 MB snapshots, +45 MiB of file pages there; 240k: both 13 MB
    /// files whole), and at 4 MiB up to 8 MiB, the peak of the 240k reference job's rerun.
    /// Each page is read once either way: a smaller step costs only a few more `madvise`
    /// calls (about 26 for two 13 MB snapshots).
    static let releaseStep = 1 << 20

    /// One collection of a snapshot: its header and the byte ranges of its record lines.
    public struct Collection: Sendable {
        public let name: String
        /// The fields records are compared by; nil when the collection has none.
        public let key: [String]?
        public let fields: [String]
        /// Each record's line (the array, without the line break) in `Snapshot.bytes`.
        public let lines: SnapshotLines
    }

    public let dataset: String
    public let collections: [Collection]
    /// The file's bytes, which `lines` point into.
    let storage: FileBytes

    var bytes: UnsafeBufferPointer<UInt8> { storage.buffer }

    public func collection(_ name: String) -> Collection? { collections.first { $0.name == name } }

    /// The byte ranges of a record line's values, in field order.
    func values(of line: Range<Int>) throws -> [Range<Int>] {
        var reader = JSONReader(bytes: bytes, start: line.lowerBound, end: line.upperBound)
        var ranges: [Range<Int>] = []
        try reader.expect(UInt8(ascii: "["), "'[' starting a record")
        var first = true
        while try reader.nextArrayElement(first: first) {
            first = false
            reader.skipWhitespace()
            let start = reader.position
            try reader.skipValue()
            ranges.append(start..<reader.position)
        }
        reader.skipWhitespace()
        guard reader.atEnd else { throw JSONSyntaxError(offset: reader.position, message: "text after the record") }
        return ranges
    }

    /// The byte ranges of a record line's first values, up to the one at `last`, written
    /// into `found` (the rest of the line is not read); false when the line has fewer.
    func values(of line: Range<Int>, upTo last: Int, into found: inout [Range<Int>]) throws -> Bool {
        var reader = JSONReader(bytes: bytes, start: line.lowerBound, end: line.upperBound)
        try reader.expect(UInt8(ascii: "["), "'[' starting a record")
        for index in 0...last {
            guard try reader.nextArrayElement(first: index == 0) else { return false }
            reader.skipWhitespace()
            let start = reader.position
            try reader.skipValue()
            found[index] = start..<reader.position
        }
        return true
    }

    // MARK: - Writing

    /// The collections a run's snapshot holds: every collection an output writes whole,
    /// in the pipeline's order.
    static func collections(of pipeline: Pipeline) -> [CollectionID] {
        pipeline.collections.filter { pipeline.writes($0) }
    }

    /// The fields a snapshot keeps of a collection: every field some output of it writes,
    /// and its key, in the collection's field order. A field no output writes cannot
    /// change what an app sees.
    static func fields(of collection: CollectionID, in pipeline: Pipeline) -> [FieldID] {
        var wanted = Set(pipeline.changeKeys[collection] ?? [])
        for output in pipeline.outputs where output.collection == collection { wanted.formUnion(output.fields) }
        return wanted.sorted { $0.index < $1.index }
    }

    /// The names of the fields a collection's records are matched by across runs, as its
    /// header lists them; nil when it has no key.
    static func key(of collection: CollectionID, in pipeline: Pipeline) -> [String]? {
        let schema = pipeline.schemas[loaded: collection]
        return pipeline.changeKeys[collection].map { $0.map { schema[$0].name } }
    }

    /// The frame of a record line of `count` fields: `[v1,v2,...]` and a line break.
    static func lineFrame(fields count: Int) -> RecordFrame {
        RecordFrame(
            separator: [], open: [UInt8(ascii: "[")],
            fields: (0..<count).map { $0 == 0 ? [] : [UInt8(ascii: ",")] }, close: Array("]\n".utf8))
    }

    /// Writes a collection's record lines, rendered by the given line frame, through the
    /// given sink, in order: an output rendering them beside its own records.
    typealias Lines = (_ frame: RecordFrame, _ write: ([UInt8]) throws -> Void) throws -> Void

    /// The snapshot of a run's collections as they are about to be written, handed to
    /// `write` piece by piece (a head line, then for each collection
    /// its header and its records a batch at a time): it is never held whole. The record
    /// lines of a collection in `carried` come from there instead of a rendering of its own.
    static func render(
        _ pipeline: Pipeline, state: RunState, carried: [CollectionID: Lines] = [:],
        to write: ([UInt8]) throws -> Void
    ) throws {
        var writer = JSONWriter()
        writer.write(
            .object(
                JSONObject([
                    ("format", .string(format)), ("version", .int(Int64(version))), ("dataset", .string(pipeline.name)),
                ])))
        writer.append(byte: 0x0A)
        try write(writer.bytes)
        for collection in collections(of: pipeline) {
            let schema = pipeline.schemas[loaded: collection]
            let fields = self.fields(of: collection, in: pipeline)
            var header = JSONWriter()
            header.write(
                .object(
                    JSONObject([
                        ("collection", .string(collection.name)),
                        ("key", key(of: collection, in: pipeline).map { .array($0.map { .string($0) }) } ?? .null),
                        ("fields", .array(fields.map { .string(schema[$0].name) })),
                        ("records", .int(Int64(state.count(collection)))),
                    ])))
            header.append(byte: 0x0A)
            try write(header.bytes)
            let frame = lineFrame(fields: fields.count)
            if let lines = carried[collection] {
                try lines(frame, write)
                continue
            }
            // Batch by batch: a collection spilled to disk is never held whole.
            func written(_ pieces: [[UInt8]]) throws { for piece in pieces { try write(piece) } }
            var ahead = RenderAhead<[UInt8]>(threads: state.threads)
            try state.store(collection).forEachBatch { batch in
                try ahead.batch(
                    batch.count,
                    render: { range in
                        var lines = JSONWriter()
                        lines.reserve(range.count * (fields.count * 12 + 3))
                        frame.render(
                            batch[(batch.startIndex + range.lowerBound)..<(batch.startIndex + range.upperBound)],
                            ids: fields, first: true, into: &lines)
                        return lines.bytes
                    }, write: written)
            }
            try ahead.finish(write: written)
        }
    }

    // MARK: - Reading

    /// Why a snapshot could not be read: the line and what is wrong.
    public struct ReadError: Error, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// Reads a snapshot's structure: its headers and where each record line is. Record
    /// lines are checked for JSON syntax when compared, not here.
    public init(storage: FileBytes) throws {
        self.storage = storage
        let bytes = storage.buffer
        var lineNumber = 0
        var position = 0
        /// The next line (without its line break), or nil at the end.
        func nextLine() -> Range<Int>? {
            guard position < bytes.count, let base = bytes.baseAddress else { return nil }
            let start = position
            // memchr: a byte-by-byte loop was 0.6% of a compared rerun's samples (two 13 MB snapshots).
            var end = bytes.count
            if let found = memchr(base + start, 0x0A, bytes.count - start) {
                end = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
            }
            position = end + 1
            lineNumber += 1
            return start..<end
        }
        func object(_ range: Range<Int>, _ what: String) throws -> JSONObject {
            var reader = JSONReader(bytes: bytes, start: range.lowerBound, end: range.upperBound)
            guard case .object(let object)? = try? reader.readValue() else {
                throw ReadError(line: lineNumber, message: "expected \(what)")
            }
            return object
        }
        guard let first = nextLine() else { throw ReadError(line: 1, message: "the file is empty") }
        let head = try object(first, "the snapshot's first line")
        guard head["format"]?.string == Self.format else {
            throw ReadError(line: 1, message: "not a seedforge snapshot")
        }
        guard head["version"] == .int(Int64(Self.version)) else {
            throw ReadError(
                line: 1,
                message: "snapshot version \(head["version"].map(JSONWriter.compact) ?? "null") is not \(Self.version)")
        }
        dataset = head["dataset"]?.string ?? ""
        var collections: [Collection] = []
        while let range = nextLine() {
            if range.isEmpty && position >= bytes.count { break }
            let header = try object(range, "a collection header")
            guard let name = header["collection"]?.string, case .array(let fieldValues)? = header["fields"],
                case .int(let count)? = header["records"], count >= 0
            else {
                throw ReadError(line: lineNumber, message: "a collection header needs collection, fields and records")
            }
            let fields = fieldValues.compactMap(\.string)
            var key: [String]? = nil
            if case .array(let keyValues)? = header["key"] {
                key = keyValues.compactMap(\.string)
                guard key!.count == keyValues.count, !key!.isEmpty, key!.allSatisfy(fields.contains) else {
                    throw ReadError(line: lineNumber, message: "the key of \(name) must name some of its fields")
                }
            }
            guard fields.count == fieldValues.count, Set(fields).count == fields.count else {
                throw ReadError(line: lineNumber, message: "the fields of \(name) must be distinct names")
            }
            var lines = SnapshotLines(from: position, capacity: Int(count))
            // A mapped file's pages go behind the scan: a snapshot of millions of records
            // is not brought into memory whole just to find its lines.
            var pass = FileBytes.ReleasingPass(storage, from: position, step: Self.releaseStep)
            for _ in 0..<count {
                guard let line = nextLine(), !line.isEmpty else {
                    throw ReadError(line: lineNumber, message: "\(name) ends after \(lines.count) of \(count) records")
                }
                lines.append(endingAt: line.upperBound)
                pass.reached(position)
            }
            pass.end(at: min(position, bytes.count))
            collections.append(Collection(name: name, key: key, fields: fields, lines: lines))
        }
        self.collections = collections
    }

    /// The snapshot a run has just rendered.
    init(rendered: [UInt8]) throws {
        try self.init(storage: FileBytes(copying: rendered))
    }

    /// The snapshot of the dataset folder `folder`, or why there is none to compare with.
    public static func read(folder: String) -> Result<Snapshot, Unavailable> {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            return .failure(.noDataset)
        }
        let path = folder + "/" + file
        guard FileManager.default.fileExists(atPath: path) else { return .failure(.noSnapshot) }
        do {
            return .success(try Snapshot(storage: FileBytes.read(path: path)))
        } catch let error as ReadError {
            return .failure(.unreadable(error.description))
        } catch {
            return .failure(.unreadable("\(error)"))
        }
    }

    /// Why a dataset has no snapshot to compare with.
    public enum Unavailable: Error, Equatable, Sendable {
        /// No dataset there at all (a first run).
        case noDataset
        /// A dataset written before seedforge kept snapshots.
        case noSnapshot
        case unreadable(String)

        public var reason: String {
            switch self {
            case .noDataset: return "first run, no previous dataset"
            case .noSnapshot: return "the previous dataset has no \(Snapshot.file) (written by an older seedforge)"
            case .unreadable(let why): return "the previous dataset's \(Snapshot.file) cannot be read (\(why))"
            }
        }
    }
}
