/// The `take:` mapping of enrichers that copy fields from a matched record of another
/// collection: `{new field: its field}`, or `{new field: {field: F, default: V}}` where V
/// (read as F's type) is written when there is no match. Each new field gets the type of
/// the field it copies.
struct TakenFields: Sendable {
    struct Entry: Sendable {
        let into: FieldID
        let from: FieldID
        let fallback: Value
    }

    let entries: [Entry]

    init(_ config: ConfigMap, plan: PipelinePlan, collection: CollectionID, from: CollectionID, defaults: Bool) throws {
        let takeNode = try config.require("take")
        let pairs = try takeNode.mapping("'take'").mapping
        if pairs.isEmpty { throw takeNode.error("'take' names no field; give {new field: field of \(from)}") }
        var entries: [Entry] = []
        for (keyNode, valueNode) in pairs {
            let key = ConfigNode(node: keyNode, file: config.file)
            var value = ConfigNode(node: valueNode, file: config.file)
            var defaultNode: ConfigNode?
            if case .mapping = valueNode {
                guard defaults else { throw value.error("'take' entries here are {new field: field of \(from)}") }
                let entry = try value.mapping("a 'take' entry")
                if let error = entry.unknownKeys(allowed: ["field", "default"]).first { throw error }
                value = try entry.require("field")
                defaultNode = entry["default"]
            }
            let source = try plan.field(value.string("a field of '\(from)'"), in: from, at: value)
            let spec = plan.schema(from)[source]
            let fallback = try defaultNode.map { try $0.value(as: spec, setting: "default") } ?? .null
            let into = try plan.addField(key.string("a new field name"), type: spec.type, to: collection, at: key)
            entries.append(Entry(into: into, from: source, fallback: fallback))
        }
        self.entries = entries
    }

    /// Copies the fields of `match` into `record`, or the defaults when there is none.
    func apply(to record: inout Record, from match: Record?) {
        for entry in entries { record[entry.into] = match.map { $0[entry.from] } ?? entry.fallback }
    }

    func contains(name: String, in schema: Schema) -> Bool { entries.contains { schema[$0.into].name == name } }
}
