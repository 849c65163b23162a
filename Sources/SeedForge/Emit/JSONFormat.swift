/// `format: json`: the collection as one JSON array, one key per line with two-space
/// indentation (so dataset diffs in git are readable), keys in field order, a final new line.
public struct JSONFormat: SingleFileFormat {
    public static let spec = KindSpec(
        stage: .emit, name: "json",
        summary: "A JSON array of objects, indented, keys in field order.",
        keys: OutputKeys.common + [OutputKeys.filter],
        example: """
            - file: shops.json
              collection: shops
            """)
    public static let extensions = ["json"]

    public init() {}
    public init(config: ConfigMap, plan: PipelinePlan, collection: String) throws {}

    public func head(count: Int, fields: [FieldSpec]) -> [UInt8] { Array((count == 0 ? "[]\n" : "[\n").utf8) }

    public func render(_ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID], first: Bool) -> [UInt8] {
        Self.elements(records, fields: fields, ids: ids, first: first)
    }

    public func tail(count: Int) -> [UInt8] { count == 0 ? [] : Array("\n]\n".utf8) }

    /// The records as array elements (`  {...}` separated by `,\n`), without brackets;
    /// `first` says whether the first record starts the array (no comma before it).
    static func elements(_ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID], first: Bool) -> [UInt8] {
        var writer = JSONWriter()
        writer.reserve(records.count * (fields.count * 24 + 8))
        // Field names are escaped once, not once per record.
        let keys: [[UInt8]] = fields.map { field in
            var key = JSONWriter()
            key.append("    ")
            key.writeString(field.name)
            key.append(": ")
            return key.bytes
        }
        var isFirst = first
        for record in records {
            writer.append(isFirst ? "  {\n" : ",\n  {\n")
            isFirst = false
            for (position, id) in ids.enumerated() {
                if position > 0 { writer.append(",\n") }
                writer.append(bytes: keys[position])
                writer.writePretty(record[id], indent: 2)
            }
            writer.append("\n  }")
        }
        return writer.bytes
    }
}
