/// `format: ndjson`: one compact JSON object per line, keys in field order.
public struct NDJSONFormat: SingleFileFormat, StructuredFormat {
    public static let spec = KindSpec(
        stage: .emit, name: "ndjson",
        summary: "One compact JSON object per line; `fields:` may place fields as for json.",
        keys: OutputKeys.structured + [OutputKeys.filter],
        example: """
            - file: cities.ndjson              # the map app's {"country", "name", "_id", "coord": {"lon", "lat"}}
              collection: cities
              fields: [country, name, {field: id, as: _id}, {field: longitude, at: /coord/lon}, {field: latitude, at: /coord/lat}]
            """)
    public static let extensions = ["ndjson", "jsonl"]

    /// Where `fields:` places each field; nil: every field under its own name.
    public var layout: FieldLayout?

    public init(config: ConfigMap, plan: PipelinePlan, collection: String) throws {}

    public func render(_ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID], first: Bool) -> [UInt8] {
        var writer = JSONWriter()
        for record in records {
            if let layout {
                layout.write(.object(layout.members), record, ids, into: &writer, indent: nil)
            } else {
                writer.write(record.object(fields: fields, ids: ids))
            }
            writer.append(byte: 0x0A)
        }
        return writer.bytes
    }
}
