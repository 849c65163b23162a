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
        let size = self.size
        // index.json's page entries, rendered as their pages are cut, as `writePretty` of the
        // whole index would write them: a tree of `Value`s for 23,256 pages (the shipped
        // cities) was built to be walked once, at the end of the output that ends last.
        var listed = JSONWriter()
        var pageCount = 0
        // Pages are cut from each batch of records; a page a batch ends in the middle of is
        // completed with the next batch's first records.
        var carried: [Record] = []
        let render = JSONFormat(layout: layout).files(fields: fields, ids: ids)
        let width = Record.prefetchWidth(ids)
        func writePages(_ records: ArraySlice<Record>, last: Bool) throws {
            let full = last ? (records.count + size - 1) / size : records.count / size
            let firstNumber = pageCount + 1
            func page(_ index: Int) -> ArraySlice<Record> {
                let start = records.startIndex + index * size
                return records[start..<min(start + size, records.endIndex)]
            }
            try out.writeFiles(full) { index in
                // The renderer looks `Record.prefetchDistance` records ahead inside a page only:
                // the next page's first rows are fetched while this one is rendered, so they do
                // not wait on memory (the records' rows lie all over the heap).
                let next = records.startIndex + (index + 1) * size
                Record.prefetchValues(of: records, in: next..<(next + min(size, Record.prefetchDistance)), width: width)
                return (Self.fileName(page: firstNumber + index), render(page(index)))
            }
            for index in 0..<full {
                let records = page(index)
                let number = firstNumber + index
                // An element of the index's `pages` array, two levels in.
                listed.append(number == 1 ? "    " : ",\n    ")
                listed.writePretty(
                    .object(
                        JSONObject([
                            ("page", .int(Int64(number))), ("file", .string(Self.fileName(page: number))),
                            ("records", .int(Int64(records.count))), ("first", records.first![key]),
                            ("last", records.last![key]),
                        ])),
                    indent: 2)
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
