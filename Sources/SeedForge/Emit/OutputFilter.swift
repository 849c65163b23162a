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

    init(_ node: ConfigNode, collection: String, plan: PipelinePlan, what: String) throws {
        var conditions: [Condition] = []
        let mapping = try node.mapping("'where' of \(what)")
        guard !mapping.mapping.isEmpty else { throw node.error("'where' of \(what) is empty; give {field: value} or remove it") }
        for (keyNode, valueNode) in mapping.mapping {
            let key = ConfigNode(node: keyNode, file: node.file)
            let name = try key.string("a field")
            let field = try plan.field(name, in: collection, at: key)
            let spec = plan.schema(collection)[field]
            let value = ConfigNode(node: valueNode, file: node.file)
            let items: [ConfigNode]
            if case .sequence = valueNode {
                items = try value.list("the values of '\(name)'")
                guard !items.isEmpty else { throw value.error("'where' on '\(name)' lists no value, so nothing would be written; list at least one") }
            } else {
                items = [value]
            }
            conditions.append(Condition(field: field, values: try items.map { try Self.read($0, as: spec) }))
        }
        self.conditions = conditions
    }

    /// A YAML value read as a value of the field's type (`key` names the setting in messages).
    static func read(_ node: ConfigNode, as field: FieldSpec, key: String = "where") throws -> Value {
        guard case .scalar(let scalar) = node.node else {
            if field.type == .array || field.type == .object || field.type == .any { return try node.value() }
            throw node.error("'\(key)' on '\(field.name)' (\(field.type.rawValue)) needs a single value\(key == "where" ? " or a list of values" : "")")
        }
        if scalar.style == .plain && node.node.null != nil { return .null }
        let text = scalar.string
        func mismatch() -> DefinitionError {
            node.error("'\(key)' on '\(field.name)': '\(text)' is not a value of its type, \(field.type.rawValue)")
        }
        switch field.type {
        case .string:
            return .string(text)
        case .integer:
            guard let int = Int64(text) else { throw mismatch() }
            return .int(int)
        case .decimal:
            // Exactly its digits, as ingest stores decimals (2.50 is 2.5, never a double).
            guard let canonical = ExactDecimal.canonical(text) else { throw mismatch() }
            return .decimal(canonical)
        case .number:
            if let int = Int64(text) { return .int(int) }
            guard let double = Double(text), double.isFinite else { throw mismatch() }
            return .double(double)
        case .boolean:
            guard let bool = node.node.bool else { throw mismatch() }
            return .bool(bool)
        case .array, .object, .any:
            return try node.value()
        }
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
