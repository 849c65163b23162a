/// A file format a collection can be written in (`format:` of an entry under `outputs:`).
public protocol OutputFormat: Sendable {
    static var spec: KindSpec { get }
    /// File name endings that select this format when `format:` is left out.
    static var extensions: [String] { get }
    init(config: ConfigMap) throws
    func render(_ records: [Record], fields: [FieldSpec], ids: [FieldID]) -> [UInt8]
}

/// Keys every output accepts.
enum OutputKeys {
    static let common: [KeySpec] = [
        KeySpec("file", required: true, "the file name inside the dataset folder (a sub-folder path is allowed, never '..')"),
        KeySpec("collection", required: true, "the collection written to this file"),
        KeySpec("format", "json, ndjson or csv (default: from the file name's extension)"),
        KeySpec("fields", "the fields to write, in order (default: every field of the collection)"),
    ]
}

/// One declared output: which collection, which fields, which format, which file.
public struct OutputDefinition: Sendable {
    public let file: String
    public let collection: String
    public let formatName: String
    public let format: any OutputFormat
    public let fields: [FieldID]

    public func render(_ records: [Record], schema: Schema) -> [UInt8] {
        format.render(records, fields: fields.map { schema[$0] }, ids: fields)
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
