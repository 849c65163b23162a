/// `normalize: coalesce`: a new field holding the first of several fields that has a
/// value (not null, not empty or blank text): a display name from `[name, title,
/// placeId]`. The fields must share one type (or the new field is `any`).
public struct Coalesce: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "coalesce",
        summary: "A new field holding the first of several fields with a value (not null or blank).",
        keys: [
            CommonKeys.collection,
            KeySpec("from", required: true, "the fields to look in, first choice first, e.g. [name, title]"),
            KeySpec("into", required: true, "the name of the new field (of the fields' type, or any when they differ)"),
        ],
        details: #"""
            A value is a value when it is not null and not empty or blank text: a label from
            `[shortName, name]`.
            """#,
        example: """
            - normalize: coalesce
              collection: shops
              from: [shortName, name]
              into: label
            """)

    public let collection: CollectionID
    let from: [FieldID]
    let into: FieldID

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        from = try plan.fields(config, key: "from", in: collection)
        let schema = plan.schema(collection)
        let types = Set(from.map { schema[$0].type })
        into = try plan.addField(config, type: types.count == 1 ? types.first! : .any, to: collection)
    }

    /// Not null, and not empty or blank text.
    static func hasValue(_ value: Value) -> Bool {
        switch value {
        case .null: return false
        case .string(let text): return !text.allSatisfy(\.isWhitespace)
        default: return true
        }
    }

    public func change(_ state: RunState) throws -> RecordChange {
        return RecordChange(step: "normalize: coalesce", parallel: true) { record in
            var chosen = Value.null
            for field in from where Self.hasValue(record[field]) {
                chosen = record[field]
                break
            }
            record[into] = chosen
            return []
        }
    }
}
