/// `format: json`: the collection as one JSON array, one key per line with two-space
/// indentation (so dataset diffs in git are readable), keys in field order, a final new line.
public struct JSONFormat: SingleFileFormat {
    public static let spec = KindSpec(
        stage: .emit, name: "json",
        summary: "A JSON array of objects, indented, keys in field order.",
        keys: OutputKeys.common,
        example: """
            - file: shops.json
              collection: shops
            """)
    public static let extensions = ["json"]

    public init(config: ConfigMap, plan: PipelinePlan, collection: String) throws {}

    public func render(_ records: [Record], fields: [FieldSpec], ids: [FieldID]) -> [UInt8] {
        Self.array(records[...], fields: fields, ids: ids)
    }

    /// The records as an indented JSON array (also the page files of `pages`).
    static func array(_ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID]) -> [UInt8] {
        var writer = JSONWriter()
        if records.isEmpty {
            writer.append("[]\n")
            return writer.bytes
        }
        writer.append("[\n")
        for (index, record) in records.enumerated() {
            if index > 0 { writer.append(",\n") }
            writer.pad(1)
            writer.writePretty(record.object(fields: fields, ids: ids), indent: 1)
        }
        writer.append("\n]\n")
        return writer.bytes
    }
}
