import Foundation

/// A file format a collection can be written in (`format:` of an entry under `outputs:`).
public protocol OutputFormat: Sendable {
    static var spec: KindSpec { get }
    /// File name endings that select this format when `format:` is left out.
    static var extensions: [String] { get }
    /// Reads the format's own keys. `collection` is the collection being written.
    init(config: ConfigMap, plan: PipelinePlan, collection: String) throws
    /// Writes the records: one file at `out.file`, or a folder of files under it.
    func write(_ records: [Record], fields: [FieldSpec], ids: [FieldID], into out: OutputWriter) throws
}

/// A format that renders one file's bytes; most formats are this simple.
public protocol SingleFileFormat: OutputFormat {
    func render(_ records: [Record], fields: [FieldSpec], ids: [FieldID]) -> [UInt8]
}

extension SingleFileFormat {
    public func write(_ records: [Record], fields: [FieldSpec], ids: [FieldID], into out: OutputWriter) throws {
        try out.write(render(records, fields: fields, ids: ids))
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
    public let threads: Int
    public private(set) var written: [(file: String, bytes: Int, sha256: String)] = []

    init(folder: OutputDirectory, file: String, outputs: [OutputDefinition], threads: Int = 1) {
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

    public func recordWritten() throws {
        let bytes = try [UInt8](Data(contentsOf: folder.staging.appendingPathComponent(file)))
        written.append((file, bytes.count, SHA256.hex(bytes)))
    }
}

/// Keys every output accepts.
enum OutputKeys {
    static let common: [KeySpec] = [
        KeySpec("file", required: true, "the file (or, for folder formats, the folder) inside the dataset folder; sub-folders allowed, never '..'"),
        KeySpec("collection", required: true, "the collection written to this file"),
        KeySpec("format", "json, ndjson, csv, text, sqlite, pages or prefix-index (default: from the file name's extension)"),
        KeySpec("fields", "the fields to write, in order (default: every field of the collection)"),
    ]
    /// `where:`, for formats that may hold part of a collection (not pages or prefix-index,
    /// whose page numbers and index must cover the whole collection).
    static let filter = KeySpec("where", "write only the records whose fields have these values: {field: value or [values]}; values are read as the field's type")
}

/// One declared output: which collection, which fields, which format, which file.
public struct OutputDefinition: Sendable {
    public let file: String
    public let collection: String
    public let formatName: String
    public let format: any OutputFormat
    public let fields: [FieldID]
    /// `where:`: only records matching it are written (all when it has no condition).
    public let filter: OutputFilter

    /// Whether this output holds every record of its collection.
    public var isComplete: Bool { filter.conditions.isEmpty }

    /// The records this output writes: those matching every `where` condition.
    func selected(_ records: [Record]) -> [Record] { filter.apply(records) }
}

extension Record {
    /// The record as a JSON object holding the given fields, in that order.
    func object(fields: [FieldSpec], ids: [FieldID]) -> Value {
        var object = JSONObject()
        for (spec, id) in zip(fields, ids) { object.appendUnchecked(spec.name, self[id]) }
        return .object(object)
    }
}
