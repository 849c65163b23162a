import Foundation

/// `kind: ndjson`: one JSON record per line (JSON Lines). A line that is not valid JSON
/// is rejected with its line and column and the run goes on; blank lines are skipped. A
/// line over the pipeline's `limits` fails the file before any of its records is taken.
public struct NDJSONSource: SourceKind {
    public static let spec = KindSpec(
        stage: .ingest, name: "ndjson",
        summary: "Newline-delimited JSON: one record object per line.",
        keys: SourceKeys.common,
        details: #"""
            A line that is not valid JSON is rejected with rule `json-syntax` and the run goes on;
            blank lines are skipped. Read as UTF-8 (a byte order mark is skipped); invalid UTF-8,
            control characters inside strings and nesting deeper than 256 levels are rejected; a
            file, value or record over the pipeline's [`limits`](#input-limits) fails the file.
            """#,
        example: """
            reviews:
              kind: ndjson
              path: ../Fixtures/honey-shops/reviews.ndjson
              id: id
              fields:
                id: string
                rating: number
            """)

    public init(config: ConfigMap) throws {}

    public var readsByteRanges: Bool { true }

    public func read(_ text: SourceText, into sink: inout IngestSink) throws -> PageMetadata? {
        let limits = sink.limits
        try text.bytes.withUnsafeBufferPointer { buffer in
            try Self.checkLimits(buffer, text, limits)
            var lineStart = 0
            var index = 0
            var skipBOM = true
            while lineStart < buffer.count {
                var lineEnd = lineStart
                while lineEnd < buffer.count, buffer[lineEnd] != 0x0A { lineEnd += 1 }
                var reader = JSONReader(bytes: buffer, start: lineStart, end: lineEnd)
                if skipBOM {
                    reader.skipByteOrderMark()
                    skipBOM = false
                }
                if reader.peek() != nil, let range = sink.byteRange, !range.contains(reader.position) {
                    // Another shard's line (see `Shard`): counted, so indexes stay the file's.
                    if reader.position >= range.upperBound { break }
                    index += 1
                } else if reader.peek() != nil {
                    let offset = reader.position
                    let origin = Origin(source: text, offset: offset, index: index)
                    do {
                        let value = try reader.readValue()
                        if reader.peek() != nil {
                            throw JSONSyntaxError(
                                offset: reader.position, message: "unexpected data after the record on this line")
                        }
                        let duplicate = reader.duplicateKeyOffset.map {
                            JSONSource.duplicateKey(text, at: $0, origin: origin)
                        }
                        sink.accept(value, origin: origin, rejectedFor: duplicate)
                    } catch let error as JSONSyntaxError {
                        let raw = String(
                            decoding: UnsafeBufferPointer(rebasing: buffer[lineStart..<lineEnd]), as: UTF8.self)
                        sink.unreadable(
                            Finding(
                                rule: .jsonSyntax, message: "line is not valid JSON: \(error.message)",
                                location: text.location(ofOffset: error.offset, pointer: ""),
                                value: .string(String(raw.prefix(200)))))
                    } catch {
                        preconditionFailure("JSONReader throws only JSONSyntaxError")
                    }
                    index += 1
                }
                lineStart = lineEnd + 1
            }
        }
        return nil
    }

    /// Checks every line against the limits before any record is taken, so a file over one
    /// gives no record at all (validation reports it and goes on with the other files).
    /// Only a line longer than the smaller limit can break one, so the check jumps from a
    /// line start to the last line end within that many bytes: a few steps per file.
    static func checkLimits(_ buffer: UnsafeBufferPointer<UInt8>, _ text: SourceText, _ limits: InputLimits) throws {
        let shortest = min(limits.maxValueBytes, limits.maxRecordBytes)
        guard let base = buffer.baseAddress else { return }
        var lineStart = 0
        while buffer.count - lineStart > shortest {
            // A line end among the next `shortest + 1` bytes: every line before it is short.
            var back = lineStart + shortest
            while back >= lineStart, buffer[back] != 0x0A { back -= 1 }
            if back >= lineStart {
                lineStart = back + 1
                continue
            }
            let from = lineStart + shortest + 1
            let lineEnd =
                memchr(base + from, 0x0A, buffer.count - from).map {
                    base.distance(to: $0.assumingMemoryBound(to: UInt8.self))
                } ?? buffer.count
            var reader = JSONReader(bytes: buffer, start: lineStart, end: lineEnd, maxValueBytes: limits.maxValueBytes)
            if lineStart == 0 { reader.skipByteOrderMark() }
            if reader.peek() != nil {
                let start = reader.position
                var end = lineEnd
                while end > start, [0x20, 0x0D, 0x09].contains(buffer[end - 1]) { end -= 1 }
                if end - start > limits.maxRecordBytes {
                    throw limits.recordTooLarge(text, offset: start, length: end - start, from: nil)
                }
                do {
                    try reader.skipValue()
                } catch let error as JSONLimitError {
                    throw limits.valueTooLong(text, error, from: start)
                } catch {
                    // A syntax error: the line is rejected when it is read.
                }
            }
            lineStart = lineEnd + 1
        }
    }

    public func document(holding records: [Value]) -> [UInt8] {
        Array(records.map { JSONWriter.compact($0) + "\n" }.joined().utf8)
    }
}
