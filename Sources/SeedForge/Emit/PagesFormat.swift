/// `format: pages`: the collection cut into fixed-size pages for infinite scroll, as a
/// folder: `1.json`, `2.json`, ... (each an indented JSON array like `format: json`) and
/// `index.json` with the total, the page size, the page count and, per page, its file,
/// record count and the first and last value of `key`.
public struct PagesFormat: StructuredFormat {
    public static let spec = KindSpec(
        stage: .emit, name: "pages",
        summary:
            "Fixed-size JSON pages in a folder, with index.json (total, page count, first and last key of each page); `fields:` may place fields as for json.",
        keys: OutputKeys.structured + [
            KeySpec("size", required: true, "records per page"),
            KeySpec("key", required: true, "the field whose first and last value of each page go into index.json"),
        ],
        details: #"""
            A folder: `1.json`, `2.json`, ... (JSON arrays like `json`) and `index.json` with
            `total`, `pageSize`, `pageCount`, `key` and `pages` (per page: `page`, `file`,
            `records`, `first`, `last`).
            """#,
        example: """
            - file: pages
              format: pages
              collection: cities
              size: 100
              key: searchKey
            """)
    public static let extensions: [String] = []

    public let size: Int
    /// Where `fields:` places each field in the pages' records; nil: under their names.
    public var layout: FieldLayout?
    let key: FieldID
    let keyName: String

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        let sizeNode = try config.require("size")
        size = try sizeNode.int("'size'")
        guard size >= 1 else { throw sizeNode.error("'size' must be at least 1") }
        key = try plan.field(config, key: "key", in: collection)
        keyName = plan.schema(collection)[key].name
    }

    /// A file per page and `index.json`.
    public func files(records: Int) -> Int { (records + size - 1) / size + 1 }

    /// Every page's file (not `index.json`, written once at the end).
    public func fileNames(records: Int) -> [String] {
        (0..<(records + size - 1) / size).map { Self.fileName(page: $0 + 1) }
    }

    /// The file name of page `number` (1-based) inside the folder.
    public static func fileName(page number: Int) -> String { "\(number).json" }

    public func write(_ records: OutputRecords, fields: [FieldSpec], ids: [FieldID], into out: OutputWriter) throws {
        try write(records, fields: fields, ids: ids, into: out, json: nil)
    }

    /// Writes the pages and, with `json`, the file of a json output of the same records
    /// whose elements are the pages' (`PagesBeside`): each record is rendered once, a piece
    /// of the pages at a time, and its bytes go into both. The json file is streamed, its
    /// pieces written in order as they are ready (`InOrder`). With `lines`, the records'
    /// snapshot lines are rendered beside the pages (`SnapshotBeside`) and handed to its
    /// sink in order.
    func write(
        _ records: OutputRecords, fields: [FieldSpec], ids: [FieldID], into out: OutputWriter, json: OutputWriter?,
        lines: (RecordFrame.Beside, ([UInt8]) throws -> Void)? = nil
    ) throws {
        guard let (frame, sink) = lines else {
            return try writeAll(records, fields: fields, ids: ids, into: out, json: json, lines: nil)
        }
        guard JSONFormat.Elements(fields: fields, ids: ids, layout: layout).framedIDs != nil else {
            throw InternalFailure("\(out.file) renders its pages without a frame: no snapshot lines beside them")
        }
        try withoutActuallyEscaping(sink) { sink in
            let inOrder = InOrder(name: Snapshot.file, write: sink)
            try writeAll(
                records, fields: fields, ids: ids, into: out, json: json, lines: Lines(frame: frame, inOrder: inOrder))
            try inOrder.finish(count: records.count)
        }
    }

    /// The snapshot's lines rendered beside the pages: their frame, and where they go.
    private struct Lines {
        let frame: RecordFrame.Beside
        let inOrder: InOrder
    }

    /// The pages, the json beside them and the lines beside them, each when given.
    private func writeAll(
        _ records: OutputRecords, fields: [FieldSpec], ids: [FieldID], into out: OutputWriter, json: OutputWriter?,
        lines: Lines?
    ) throws {
        guard let json else {
            return try writePages(records, fields: fields, ids: ids, into: out, beside: nil, lines: lines)
        }
        let format = JSONFormat(layout: layout)
        try json.stream { file in
            try file.write(format.head(count: records.count, fields: fields))
            let inOrder = InOrder(file: file)
            try writePages(records, fields: fields, ids: ids, into: out, beside: inOrder, lines: lines)
            try inOrder.finish(count: records.count)
            try file.write(format.tail(count: records.count))
        }
    }

    private func writePages(
        _ records: OutputRecords, fields: [FieldSpec], ids: [FieldID], into out: OutputWriter, beside: InOrder?,
        lines: Lines?
    ) throws {
        let size = self.size
        // index.json's page entries, rendered as their pages are cut, as `writePretty` of the
        // whole index would write them: a tree of `Value`s for 23,256 pages (the shipped
        // cities) was built to be walked once, at the end of the output that ends last.
        var listed = JSONWriter()
        var pageCount = 0
        // Pages are cut from each batch of records; a page a batch ends in the middle of is
        // completed with the next batch's first records.
        var carried: [Record] = []
        let elements = JSONFormat.Elements(fields: fields, ids: ids, layout: layout)
        let pageFormat = JSONFormat(layout: layout)
        let head = pageFormat.head(count: 1, fields: fields)
        let tail = pageFormat.tail(count: 1)
        func writePages(_ records: ArraySlice<Record>, last: Bool) throws {
            let full = last ? (records.count + size - 1) / size : records.count / size
            let firstNumber = pageCount + 1
            // The position of `records`' first record among all the output's records.
            let position = pageCount * size
            func page(_ index: Int) -> ArraySlice<Record> {
                let start = records.startIndex + index * size
                return records[start..<min(start + size, records.endIndex)]
            }
            try out.writeFiles(full) { pages in
                // The piece's records rendered at once (the renderer looks
                // `Record.prefetchDistance` records ahead inside what it renders), each page
                // then a copy of its records' bytes between the head and the tail.
                let start = records.startIndex + pages.lowerBound * size
                let end = min(records.startIndex + pages.upperBound * size, records.endIndex)
                var writer = JSONWriter()
                writer.reserve((end - start) * elements.room)
                var bounds: [Int] = []
                let first = position + (start - records.startIndex)
                let range = first..<(position + (end - records.startIndex))
                if let lines {
                    var lineBytes = JSONWriter()
                    elements.render(
                        records[start..<end], first: first == 0, into: &writer, bounds: &bounds, beside: lines.frame,
                        into: &lineBytes)
                    lines.inOrder.put(lineBytes.bytes, records: range)
                } else {
                    elements.render(records[start..<end], first: first == 0, into: &writer, bounds: &bounds)
                }
                let rendered = writer.bytes
                beside?.put(rendered, records: range)
                return pages.map { index in
                    let from = (index - pages.lowerBound) * size
                    let to = min(from + size, end - start) - 1
                    let body = bounds[2 * from]..<bounds[2 * to + 1]
                    let bytes = [UInt8](unsafeUninitializedCapacity: head.count + body.count + tail.count) {
                        buffer, count in
                        var at = buffer.baseAddress!
                        func copy(_ part: UnsafeBufferPointer<UInt8>) {
                            at.update(from: part.baseAddress!, count: part.count)
                            at += part.count
                        }
                        head.withUnsafeBufferPointer(copy)
                        rendered.withUnsafeBufferPointer { copy(UnsafeBufferPointer(rebasing: $0[body])) }
                        tail.withUnsafeBufferPointer(copy)
                        count = buffer.count
                    }
                    return (Self.fileName(page: firstNumber + index), bytes)
                }
            }
            for index in 0..<full {
                let records = page(index)
                let number = firstNumber + index
                // An element of the index's `pages` array, two levels in, as `writePretty` of
                // its object at indentation 2 writes it.
                listed.append(number == 1 ? "    {\n      \"page\": " : ",\n    {\n      \"page\": ")
                listed.writeInteger(Int64(number))
                listed.append(",\n      \"file\": ")
                listed.writeString(Self.fileName(page: number))
                listed.append(",\n      \"records\": ")
                listed.writeInteger(Int64(records.count))
                listed.append(",\n      \"first\": ")
                listed.writePretty(records.first![key], indent: 3)
                listed.append(",\n      \"last\": ")
                listed.writePretty(records.last![key], indent: 3)
                listed.append("\n    }")
            }
            pageCount += full
            carried = Array(records[min(records.startIndex + full * size, records.endIndex)...])
        }
        try records.forEachBatch { batch in
            try carried.isEmpty ? writePages(batch, last: false) : writePages((carried + batch)[...], last: false)
        }
        if !carried.isEmpty { try writePages(carried[...], last: true) }
        var writer = JSONWriter()
        writer.append("{\n  \"total\": ")
        writer.writeInteger(Int64(records.count))
        writer.append(",\n  \"pageSize\": ")
        writer.writeInteger(Int64(size))
        writer.append(",\n  \"pageCount\": ")
        writer.writeInteger(Int64(pageCount))
        writer.append(",\n  \"key\": ")
        writer.writeString(keyName)
        writer.append(",\n  \"pages\": ")
        if pageCount == 0 {
            writer.append("[]")
        } else {
            writer.append("[\n")
            writer.append(bytes: listed.bytes)
            writer.append("\n  ]")
        }
        writer.append("\n}\n")
        try out.write(writer.bytes, to: "index.json")
    }
}
