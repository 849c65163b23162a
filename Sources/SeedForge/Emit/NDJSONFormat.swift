/// `format: ndjson`: one compact JSON object per line, keys in field order.
public struct NDJSONFormat: FramedFormat, StructuredFormat {
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

    public init(layout: FieldLayout? = nil) { self.layout = layout }
    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {}

    public func render(_ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID], first: Bool) -> [UInt8] {
        var writer = JSONWriter()
        writer.reserve(records.count * (fields.count * 20 + 4))
        if let layout {
            for record in records {
                layout.write(.object(layout.members), record, ids, into: &writer, indent: nil)
                writer.append(byte: 0x0A)
            }
            return writer.bytes
        }
        Self.frame(fields).render(records, ids: ids, first: first, into: &writer)
        return writer.bytes
    }

    func frame(fields: [FieldSpec]) -> RecordFrame? { layout == nil ? Self.frame(fields) : nil }

    /// Each record written straight to bytes, keys escaped once (`{"name":` and
    /// `,"name":`), as one object of its fields would write it.
    private static func frame(_ fields: [FieldSpec]) -> RecordFrame {
        let keys: [[UInt8]] = fields.enumerated().map { position, field in
            var key = JSONWriter()
            key.append(byte: position == 0 ? UInt8(ascii: "{") : UInt8(ascii: ","))
            key.writeString(field.name)
            key.append(byte: UInt8(ascii: ":"))
            return key.bytes
        }
        return RecordFrame(
            separator: [], open: fields.isEmpty ? [UInt8(ascii: "{")] : [], fields: keys, close: Array("}\n".utf8))
    }
}
