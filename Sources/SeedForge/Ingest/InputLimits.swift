/// What one input may hold (a pipeline's `limits:`), so that hostile or broken input (a
/// gzip bomb, a string of gigabytes) fails fast with a clear error naming the file
/// instead of exhausting time and memory. The defaults lie far beyond real seed data:
///
/// - `max-file-bytes` 1 GiB: an input file as stored and, for gzip, decompressed. A run
///   holds each file's text and its records in memory (about 10x the text at peak, see
///   the README's Performance section), so 1 GiB of text already needs some 10 GiB; the
///   5M-city benchmark dump, about 0.4 GiB, peaks at 4 GiB. Decompression stops at the
///   limit, so a 2 MB file expanding to 2 GiB costs at most 1 GiB of memory.
/// - `max-value-bytes` 16 MiB: one JSON string (key or value) or number, as written in the
///   file, or one HTML field's text; the longest texts of seed data (descriptions,
///   reviews) are kilobytes.
/// - `max-record-bytes` 64 MiB: one record of a JSON or NDJSON source, from its first byte
///   to its last (an element of the records array, an NDJSON line).
public struct InputLimits: Sendable, Equatable {
    public var maxFileBytes: Int
    public var maxValueBytes: Int
    public var maxRecordBytes: Int

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
    static let keys = ["max-file-bytes", "max-value-bytes", "max-record-bytes"]

    /// "`what` exceeds limits.KEY (SIZE); raise it ...": the end of every limit message.
    static func exceeded(_ what: String, key: String, limit: Int) -> String {
        "\(what) exceeds limits.\(key) (\(ByteSize.format(limit))); raise it in the pipeline's 'limits:' if this file is genuine"
    }
}
