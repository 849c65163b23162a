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

    public init(config: ConfigMap, plan: PipelinePlan, collection: String) throws {
        let sizeNode = try config.require("size")
        size = try sizeNode.int("'size'")
        guard size >= 1 else { throw sizeNode.error("'size' must be at least 1") }
        key = try plan.field(config, key: "key", in: collection)
        keyName = plan.schema(collection)[key].name
    }

    /// The file name of page `number` (1-based) inside the folder.
    public static func fileName(page number: Int) -> String { "\(number).json" }

    public func write(_ records: [Record], fields: [FieldSpec], ids: [FieldID], into out: OutputWriter) throws {
        let pageCount = (records.count + size - 1) / size
        let size = self.size
        func page(_ number: Int) -> ArraySlice<Record> {
            records[(number - 1) * size..<min(number * size, records.count)]
        }
        try out.writeFiles(pageCount) { index in
            (
                Self.fileName(page: index + 1),
                JSONFormat(layout: layout).render(page(index + 1), fields: fields, ids: ids)
            )
        }
        let entries: [Value] = (0..<pageCount).map { index in
            let number = index + 1
            let records = page(number)
            return .object(
                JSONObject([
                    ("page", .int(Int64(number))), ("file", .string(Self.fileName(page: number))),
                    ("records", .int(Int64(records.count))), ("first", records.first![key]),
                    ("last", records.last![key]),
                ]))
        }
        let index = Value.object(
            JSONObject([
                ("total", .int(Int64(records.count))), ("pageSize", .int(Int64(size))),
                ("pageCount", .int(Int64(entries.count))),
                ("key", .string(keyName)), ("pages", .array(entries)),
            ]))
        var writer = JSONWriter()
        writer.writePretty(index)
        writer.append(byte: 0x0A)
        try out.write(writer.bytes, to: "index.json")
    }
}
