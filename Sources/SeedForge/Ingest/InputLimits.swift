/// What one input may hold (a pipeline's `limits:`), so that hostile or broken input (a
/// gzip bomb, a string of gigabytes) fails fast with a clear error naming the file
/// instead of exhausting time and memory. The defaults lie far beyond real seed data:
///
/// - `max-file-bytes` 1 GiB: an input file as stored and, for gzip, decompressed. A run
///   holds the records of its collections in memory (6 to 8x the text at peak, see the
///   README's Performance section), so 1 GiB of text already needs some 8 GiB.
///   Decompression stops at the limit, so a 2 MB file expanding to 2 GiB costs at most
///   1 GiB of memory.
/// - `max-value-bytes` 16 MiB: one JSON string (key or value) or number, as written in the
///   file, or one HTML field's text; the longest texts of seed data (descriptions,
///   reviews) are kilobytes.
/// - `max-record-bytes` 64 MiB: one record of a JSON or NDJSON source, from its first byte
///   to its last (an element of the records array, an NDJSON line).
public struct InputLimits: Sendable, Equatable {
    public var maxFileBytes: Int
    public var maxValueBytes: Int
    public var maxRecordBytes: Int
    /// Bytes of records a run holds in memory before it spills them to disk (nil: half
    /// the machine's memory; `--memory-limit` overrides it).
    public var maxMemory: Int?

    public static let defaultMaxFileBytes = 1 << 30
    public static let defaultMaxValueBytes = 16 << 20
    public static let defaultMaxRecordBytes = 64 << 20

    public static let defaults = InputLimits()

    public init(
        maxFileBytes: Int = InputLimits.defaultMaxFileBytes, maxValueBytes: Int = InputLimits.defaultMaxValueBytes,
        maxRecordBytes: Int = InputLimits.defaultMaxRecordBytes
    ) {
        self.maxFileBytes = maxFileBytes
        self.maxValueBytes = maxValueBytes
        self.maxRecordBytes = maxRecordBytes
    }

    /// The YAML keys under `limits:`.
    static let keys = ["max-file-bytes", "max-value-bytes", "max-record-bytes", "max-memory"]

    /// "`what` exceeds limits.KEY (SIZE); raise it ...": the end of every limit message.
    static func exceeded(_ what: String, key: String, limit: Int) -> String {
        "\(what) exceeds limits.\(key) (\(ByteSize.format(limit))); raise it in the pipeline's 'limits:' if this file is genuine"
    }

    /// A record longer than `max-record-bytes`, at its start: with its JSON Pointer found
    /// from the document at `start`, or (NDJSON, `start` nil) as the record on its line.
    func recordTooLarge(_ text: SourceText, offset: Int, length: Int, from start: Int?) -> SourceError {
        let pointer = start.map { FieldPath.pointer(Self.path(text, to: offset, from: $0)) } ?? ""
        let place = start == nil ? " on this line" : pointer.isEmpty ? "" : " at \(pointer)"
        return SourceError(
            text, offset: offset,
            Self.exceeded("a record of \(length) bytes\(place)", key: "max-record-bytes", limit: maxRecordBytes),
            pointer: pointer)
    }

    /// A string or number longer than `max-value-bytes`, at its start, with its JSON
    /// Pointer found from the value at `start` (the document, or an NDJSON line's record),
    /// through the record starting at `record` when it is known (so the long value itself
    /// is never read again).
    func valueTooLong(_ text: SourceText, _ error: JSONLimitError, from start: Int, record: Int? = nil) -> SourceError {
        // A key (a string followed by ':') is named by the object holding it.
        var after = error.offset + error.length + 2
        while after < text.bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(text.bytes[after]) { after += 1 }
        let isKey = error.what == "a string" && after < text.bytes.count && text.bytes[after] == UInt8(ascii: ":")
        var path =
            record.map { Self.path(text, to: $0, from: start) + Self.path(text, to: error.offset, from: $0) }
            ?? Self.path(text, to: error.offset, from: start)
        if isKey, !path.isEmpty { path.removeLast() }
        let pointer = FieldPath.pointer(path)
        let what = "\(isKey ? "a key" : error.what) of \(error.length) bytes"
        let place = pointer.isEmpty ? "" : isKey ? " in the object at \(pointer)" : " at \(pointer)"
        return SourceError(
            text, offset: error.offset, Self.exceeded(what + place, key: "max-value-bytes", limit: maxValueBytes),
            pointer: pointer)
    }

    /// The path to what starts at `offset` inside the value at `start` (empty when it cannot
    /// be told: the value breaks off later). Walks the file: for messages only.
    static func path(_ text: SourceText, to offset: Int, from start: Int) -> [FieldPath.Component] {
        let path: [FieldPath.Component]? = text.bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer, start: start)
            return reader.path(to: offset)
        }
        return path ?? []
    }
}
