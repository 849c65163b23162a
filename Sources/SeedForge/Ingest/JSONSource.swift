/// `kind: json`: a JSON array of records, or an array inside a larger document found by
/// the JSON Pointer under `records:` (for API responses like `{"results": [...]}`).
/// A syntax error anywhere fails the source with the file, line and column.
public struct JSONSource: SourceKind {
    public static let spec = KindSpec(
        stage: .ingest, name: "json",
        summary: "A JSON document holding an array of record objects.",
        keys: SourceKeys.common + [
            KeySpec("records", "JSON Pointer to the array of records inside the document (default: the document itself is the array)"),
        ],
        example: """
            shops:
              kind: json
              path: ../Fixtures/honey-shops/shops.json
              id: id
              fields:
                name: string
                latitude: {type: number, from: /coordinates/0}
            """)

    let recordsPath: FieldPath?

    public init(config: ConfigMap) throws {
        if let node = config["records"] {
            let text = try node.string("'records'")
            guard text.hasPrefix("/"), let path = FieldPath(parsing: text) else {
                throw node.error("'records' must be a JSON Pointer such as /results")
            }
            recordsPath = path
        } else {
            recordsPath = nil
        }
    }

    public func read(_ text: SourceText, into sink: inout IngestSink) throws {
        try text.bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer)
            reader.skipByteOrderMark()
            let documentStart = reader.position
            guard reader.peek() != nil else {
                throw SourceError(text, offset: reader.position, "the file is empty; expected a JSON array of records")
            }
            var pointer = ""
            if let recordsPath {
                // Check the whole document first, so a syntax error is never half-read.
                do {
                    try reader.skipValue()
                    try Self.expectEnd(&reader, text)
                } catch let error as JSONSyntaxError {
                    throw SourceError(text, offset: error.offset, error.message)
                }
                reader.position = documentStart
                guard reader.locate(recordsPath) != nil else {
                    throw SourceError(text, offset: documentStart, "no value at \(recordsPath) (the 'records' pointer) in this document")
                }
                pointer = recordsPath.description
            }
            guard let first = reader.peek(), first == UInt8(ascii: "[") else {
                let found = reader.peek() == UInt8(ascii: "{") ? "an object" : "something else"
                let hint = recordsPath == nil && found == "an object"
                    ? "; if the records are inside it, set 'records' to their JSON Pointer (e.g. records: /results)" : ""
                throw SourceError(text, offset: reader.position, "expected a JSON array of records\(pointer.isEmpty ? "" : " at \(pointer)"), found \(found)\(hint)")
            }
            do {
                reader.position += 1
                var index = 0
                while try reader.nextArrayElement(first: index == 0) {
                    reader.skipWhitespace()
                    let offset = reader.position
                    let value = try reader.readValue()
                    let origin = Origin(source: text, offset: offset, index: index, pointer: "\(pointer)/\(index)")
                    let duplicate = reader.duplicateKeyOffset.map { Self.duplicateKey(text, at: $0, origin: origin) }
                    sink.accept(value, origin: origin, rejectedFor: duplicate)
                    index += 1
                }
                if recordsPath == nil { try Self.expectEnd(&reader, text) }
            } catch let error as JSONSyntaxError {
                throw SourceError(text, offset: error.offset, error.message)
            }
        }
    }

    static func expectEnd(_ reader: inout JSONReader, _ text: SourceText) throws {
        if reader.peek() != nil {
            throw JSONSyntaxError(offset: reader.position, message: "unexpected data after the end of the JSON document")
        }
    }

    /// A record with a key written twice: JSON readers disagree on which value wins, so the
    /// record is rejected rather than guessed at. Points at the second occurrence.
    static func duplicateKey(_ text: SourceText, at offset: Int, origin: Origin) -> Finding {
        let path: [FieldPath.Component] = text.bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer, start: origin.offset)
            return reader.path(to: offset) ?? []
        }
        var key = "?"
        if case .key(let last)? = path.last { key = last }
        return Finding(
            rule: "duplicate-key", message: "key '\(key)' appears more than once in the same object; which value is meant is ambiguous",
            location: text.location(ofOffset: offset, pointer: origin.pointer + FieldPath.pointer(path)),
            field: key, value: nil)
    }
}
