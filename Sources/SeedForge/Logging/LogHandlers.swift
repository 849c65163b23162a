import Foundation
import Logging

/// Writes log events as lines on standard error, in one of two formats:
/// `text` for people (`seedforge: dataset: message`) or `json` for machines (one object
/// per line: time, level, message and metadata such as the dataset, file, line, column).
public struct LineLogHandler: LogHandler {
    public enum Format: Sendable {
        case text, json
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let format: Format
    let write: @Sendable (String) -> Void

    public init(format: Format, level: Logger.Level, write: @escaping @Sendable (String) -> Void = StandardError.write)
    {
        self.format = format
        self.logLevel = level
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        switch format {
        case .text:
            var prefix = "seedforge"
            if let dataset = merged["dataset"] { prefix += ": \(dataset)" }
            let level = event.level >= .warning ? "\(event.level): " : ""
            write("\(prefix): \(level)\(event.message)\n")
        case .json:
            var object = JSONObject()
            object.appendUnchecked(
                "time", .string(Timestamp.internetTime(secondsSince1970: Date().timeIntervalSince1970)))
            object.appendUnchecked("level", .string(event.level.rawValue))
            object.appendUnchecked("message", .string("\(event.message)"))
            for key in merged.keys.sorted() { object.appendUnchecked(key, .string("\(merged[key]!)")) }
            write(JSONWriter.compact(.object(object)) + "\n")
        }
    }
}

/// Unbuffered writes to standard error.
public enum StandardError {
    public static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
