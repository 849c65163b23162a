/// `kind: json`: a JSON array of records, or an array inside a larger document found by
/// the JSON Pointer under `records:` (for API responses like `{"results": [...]}`).
/// A syntax error anywhere fails the source with the file, line and column.
public struct JSONSource: SourceKind {
    public static let spec = KindSpec(
        stage: .ingest, name: "json",
        summary: "A JSON document holding an array of record objects.",
        keys: SourceKeys.common + [
            KeySpec("records", "JSON Pointer to the array of records inside the document (default: the document itself is the array)"),
            KeySpec("page-number", "JSON Pointer to the page number in each page file of a paginated dump (e.g. /page); pages must then run 1...N with none missing or repeated, and are read in page order"),
            KeySpec("page-count", "JSON Pointer to the total number of pages in each page file (e.g. /total_pages); every page must agree"),
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
    let pageNumberPath: FieldPath?
    let pageCountPath: FieldPath?

    public init(config: ConfigMap) throws {
        func pointer(_ key: String, _ example: String) throws -> FieldPath? {
            guard let node = config[key] else { return nil }
            let text = try node.string("'\(key)'")
            guard text.hasPrefix("/"), let path = FieldPath(parsing: text) else {
                throw node.error("'\(key)' must be a JSON Pointer such as \(example)")
            }
            return path
        }
        recordsPath = try pointer("records", "/results")
        pageNumberPath = try pointer("page-number", "/page")
        pageCountPath = try pointer("page-count", "/total_pages")
        if pageNumberPath == nil, let node = config["page-count"] { throw node.error("'page-count' needs 'page-number' too") }
        if pageNumberPath != nil, recordsPath == nil, let node = config["page-number"] {
            throw node.error("'page-number' needs 'records': page metadata sits beside the array of records in an object")
        }
    }

    public func read(_ text: SourceText, into sink: inout IngestSink) throws -> PageMetadata? {
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
            guard let pageNumberPath else { return nil }
            let number = try Self.pageValue(pageNumberPath, "page-number", &reader, text, documentStart)
            let count = try pageCountPath.map { try Self.pageValue($0, "page-count", &reader, text, documentStart) }
            reader.position = documentStart
            let offset = reader.locate(pageNumberPath) ?? documentStart
            return PageMetadata(file: text.displayPath, number: number, count: count, location: text.location(ofOffset: offset, pointer: pageNumberPath.description))
        }
    }

    /// A positive whole number at `path` in the document, or a source error.
    static func pageValue(_ path: FieldPath, _ key: String, _ reader: inout JSONReader, _ text: SourceText, _ start: Int) throws -> Int {
        reader.position = start
        guard let offset = reader.locate(path) else {
            throw SourceError(text, offset: start, "no \(key) at \(path) in this page file")
        }
        reader.position = offset
        let value = try? reader.readValue()
        guard case .int(let number)? = value?.joinKey, number >= 1 else {
            throw SourceError(text, offset: offset, "the \(key) at \(path) must be a whole number of at least 1, found \(value.map(JSONWriter.compact) ?? "nothing")", pointer: path.description)
        }
        return Int(number)
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
