/// `format: ndjson`: one compact JSON object per line, keys in field order.
public struct NDJSONFormat: SingleFileFormat {
    public static let spec = KindSpec(
        stage: .emit, name: "ndjson",
        summary: "One compact JSON object per line.",
        keys: OutputKeys.common + [OutputKeys.filter],
        example: """
            - file: reviews.ndjson
              collection: reviews
            """)
    public static let extensions = ["ndjson", "jsonl"]

    public init(config: ConfigMap, plan: PipelinePlan, collection: String) throws {}

    public func render(_ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID], first: Bool) -> [UInt8] {
        var writer = JSONWriter()
        for record in records {
            writer.write(record.object(fields: fields, ids: ids))
            writer.append(byte: 0x0A)
        }
        return writer.bytes
    }
}
