/// `normalize: split`: a new array field from text holding a list, `"Food; Museum"` →
/// `["Food", "Museum"]`: split on `separator`, each part trimmed, empty parts left out.
/// Null stays null; text without the separator is a list of one.
public struct Split: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "split",
        summary: "A new array field from text holding a list: \"Food; Museum\" -> [Food, Museum].",
        keys: [
            CommonKeys.collection,
            KeySpec("field", required: true, "the text field holding the list"),
            KeySpec("into", required: true, "the name of the new array field"),
            KeySpec("separator", "the text between items (default \",\")"),
        ],
        details: #"""
            `"honey; candles; "` with `separator: ";"` gives `["honey", "candles"]`: each part
            trimmed, empty parts left out; null stays null.
            """#,
        example: """
            - normalize: split
              collection: shops
              field: sells
              separator: ";"
              into: products
            """)

    public let collection: CollectionID
    let field: FieldID
    let into: FieldID
    let separator: String

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        field = try plan.field(config, key: "field", in: collection)
        let type = plan.schema(collection)[field].type
        guard type == .string || type == .any else {
            throw config["field"]!.error(
                "'\(plan.schema(collection)[field].name)' is \(type.rawValue); split takes a text field")
        }
        separator = try config.string("separator") ?? ","
        if separator.isEmpty { throw config["separator"]!.error("'separator' must not be empty") }
        into = try plan.addField(config, type: .array, to: collection)
    }

    public func change(_ state: RunState) throws -> RecordChange {
        return RecordChange(step: "normalize: split", parallel: true) { record in
            guard case .string(let text) = record[field] else {
                record[into] = .null
                return []
            }
            let parts = text.components(separatedBy: separator).map(Trim.trimmed).filter { !$0.isEmpty }
            record[into] = .array(parts.map(Value.string))
            return []
        }
    }
}
