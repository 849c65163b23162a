import Foundation
import Logging

/// Log lines for people: `seedforge: [dataset] message` on standard error.
public struct TextLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let write: @Sendable (String) -> Void

    public init(level: Logger.Level, write: @escaping @Sendable (String) -> Void = StandardError.write) {
        self.logLevel = level
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var prefix = "seedforge"
        if let dataset = metadata["dataset"] ?? event.metadata?["dataset"] { prefix += ": \(dataset)" }
        let level = event.level >= .warning ? "\(event.level): " : ""
        write("\(prefix): \(level)\(event.message)\n")
    }
}

/// One JSON object per line for machines (cron, log shippers): time, level, message and
/// metadata such as the dataset.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let write: @Sendable (String) -> Void

    public init(level: Logger.Level, write: @escaping @Sendable (String) -> Void = StandardError.write) {
        self.logLevel = level
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var object = JSONObject()
        object.appendUnchecked("time", .string(formatter.string(from: Date())))
        object.appendUnchecked("level", .string(event.level.rawValue))
        object.appendUnchecked("message", .string("\(event.message)"))
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for key in merged.keys.sorted() { object.appendUnchecked(key, .string("\(merged[key]!)")) }
        write(JSONWriter.compact(.object(object)) + "\n")
    }
}

/// Unbuffered writes to standard error.
public enum StandardError {
    public static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
