import Yams

/// `where:` of an output: write only the records whose fields hold one of the given values,
/// `{city: Paris}` or `{category: [museum, gallery]}`; several fields must all match.
///
/// Each value is read as the field's declared type, so `{code: 007}` on a text field is the
/// text "007", `{year: 2024}` on an integer field compares exactly, and a value that cannot
/// be of the field's type is a definition error rather than a filter that silently keeps
/// nothing.
public struct OutputFilter: Sendable {
    public struct Condition: Sendable {
        public let field: FieldID
        public let values: [Value]
    }

    public let conditions: [Condition]

    public static let none = OutputFilter(conditions: [])

    init(conditions: [Condition]) { self.conditions = conditions }

    init(_ node: ConfigNode, collection: CollectionID, plan: PipelinePlan, what: String) throws {
        var conditions: [Condition] = []
        let mapping = try node.mapping("'where' of \(what)")
        guard !mapping.mapping.isEmpty else {
            throw node.error("'where' of \(what) is empty; give {field: value} or remove it")
        }
        for (keyNode, valueNode) in mapping.mapping {
            let key = ConfigNode(node: keyNode, file: node.file)
            let name = try key.string("a field")
            let field = try plan.field(name, in: collection, at: key)
            let spec = plan.schema(collection)[field]
            let value = ConfigNode(node: valueNode, file: node.file)
            let items: [ConfigNode]
            if case .sequence = valueNode {
                items = try value.list("the values of '\(name)'")
                guard !items.isEmpty else {
                    throw value.error(
                        "'where' on '\(name)' lists no value, so nothing would be written; list at least one")
                }
            } else {
                items = [value]
            }
            conditions.append(
                Condition(field: field, values: try items.map { try $0.value(as: spec, setting: "where") }))
        }
        self.conditions = conditions
    }

    /// Whether the record matches every condition.
    func keeps(_ record: Record) -> Bool {
        conditions.allSatisfy { condition in
            condition.values.contains { $0.describes(record[condition.field]) }
        }
    }

    func apply(_ records: [Record]) -> [Record] {
        conditions.isEmpty ? records : records.filter(keeps)
    }
}
