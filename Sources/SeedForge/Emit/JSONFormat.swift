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
        writer.reserve(records.count * (fields.count * 24 + 8))
        // Field names are escaped once, not once per record.
        let keys: [[UInt8]] = fields.map { field in
            var key = JSONWriter()
            key.append("    ")
            key.writeString(field.name)
            key.append(": ")
            return key.bytes
        }
        writer.append("[\n")
        var first = true
        for record in records {
            writer.append(first ? "  {\n" : ",\n  {\n")
            first = false
            for (position, id) in ids.enumerated() {
                if position > 0 { writer.append(",\n") }
                writer.append(bytes: keys[position])
                writer.writePretty(record[id], indent: 2)
            }
            writer.append("\n  }")
        }
        writer.append("\n]\n")
        return writer.bytes
    }
}
