/// `kind: ndjson`: one JSON record per line (JSON Lines). A line that is not valid JSON
/// is rejected with its line and column and the run goes on; blank lines are skipped.
public struct NDJSONSource: SourceKind {
    public static let spec = KindSpec(
        stage: .ingest, name: "ndjson",
        summary: "Newline-delimited JSON: one record object per line.",
        keys: SourceKeys.common,
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

    public func read(_ text: SourceText, into sink: inout IngestSink) throws -> PageMetadata? {
        text.bytes.withUnsafeBufferPointer { buffer in
            var lineStart = 0
            var index = 0
            var skipBOM = true
            while lineStart < buffer.count {
                var lineEnd = lineStart
                while lineEnd < buffer.count, buffer[lineEnd] != 0x0A { lineEnd += 1 }
                var reader = JSONReader(bytes: buffer, start: lineStart, end: lineEnd)
                if skipBOM { reader.skipByteOrderMark(); skipBOM = false }
                if reader.peek() != nil {
                    let offset = reader.position
                    let origin = Origin(source: text, offset: offset, index: index)
                    do {
                        let value = try reader.readValue()
                        if reader.peek() != nil {
                            throw JSONSyntaxError(offset: reader.position, message: "unexpected data after the record on this line")
                        }
                        let duplicate = reader.duplicateKeyOffset.map { JSONSource.duplicateKey(text, at: $0, origin: origin) }
                        sink.accept(value, origin: origin, rejectedFor: duplicate)
                    } catch let error as JSONSyntaxError {
                        let raw = String(decoding: UnsafeBufferPointer(rebasing: buffer[lineStart..<lineEnd]), as: UTF8.self)
                        sink.unreadable(Finding(
                            rule: "json-syntax", message: "line is not valid JSON: \(error.message)",
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

    public func document(holding records: [Value]) -> [UInt8] {
        Array(records.map { JSONWriter.compact($0) + "\n" }.joined().utf8)
    }
}
