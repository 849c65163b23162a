/// `normalize: set`: adds fields holding one constant value on every record, such as
/// `isVisited: false` and `source: places-api` on places read from an API before they join
/// the app's own places. The type comes from the YAML value (`false` is boolean, `3`
/// integer, `2.5` number, anything else string), or is given with `{type: T, value: V}`
/// (`{type: string, value: "007"}`, `{type: number, value: null}`). Fields are only added:
/// a name the collection already has is a definition error, never an overwrite.
public struct SetValues: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "set",
        summary: "Add fields holding a constant value on every record (e.g. isVisited: false, source: places-api).",
        keys: [
            CommonKeys.collection,
            KeySpec(
                "fields", required: true,
                "new field: value, or new field: {type: T, value: V}; the type is read from the value when not given"),
        ],
        details: #"""
            Such as `isVisited: false` and `source: places-api` on places read from an API before they
            are appended to the app's places. The type comes from the YAML value (`false` boolean, `3`
            integer, `2.5` number, other text string) or from `type` (needed for null: `{type:
            string, value: null}`). Fields are only added: a name the collection has already is a
            definition error.
            """#,
        example: """
            - normalize: set
              collection: nearby
              fields:
                isVisited: false
                source: places-api
                visitedDate: {type: string, value: null}
            """)

    public let collection: CollectionID
    let assignments: [(field: FieldID, value: Value)]

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        let fieldsNode = try config.require("fields")
        let entries = try fieldsNode.mapping("'fields'")
        guard !entries.mapping.isEmpty else { throw fieldsNode.error("'fields' names no field to set") }
        var assignments: [(FieldID, Value)] = []
        for (keyNode, valueNode) in entries.mapping {
            let key = ConfigNode(node: keyNode, file: config.file)
            let name = try key.string("a field name")
            var node = ConfigNode(node: valueNode, file: config.file)
            var type: FieldType?
            if case .mapping = valueNode {
                let typed = try node.mapping("the value of '\(name)'")
                if let error = typed.unknownKeys(allowed: ["type", "value"]).first { throw error }
                let typeNode = try typed.require("type")
                let typeName = try typeNode.string("'type'")
                guard let declared = FieldType(rawValue: typeName) else {
                    throw typeNode.error(
                        "unknown type '\(typeName)'; types: \(FieldType.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                type = declared
                node = try typed.require("value")
            }
            let value: Value
            if let type {
                value = try node.value(as: FieldSpec(name: name, type: type, sourcePath: nil), setting: "set")
            } else {
                value = try node.value()
                if value.isNull {
                    throw node.error(
                        "'\(name)': null has no type; write {type: string, value: null} (or the type the field should have)"
                    )
                }
            }
            let inferred: FieldType
            switch value {
            case .bool: inferred = .boolean
            case .int: inferred = .integer
            case .double: inferred = .number
            case .string: inferred = .string
            case .array: inferred = .array
            case .object: inferred = .object
            default: inferred = type ?? .any
            }
            assignments.append((try plan.addField(name, type: type ?? inferred, to: collection, at: key), value))
        }
        self.assignments = assignments
    }

    public func change(_ state: RunState) throws -> RecordChange {
        return RecordChange(step: "normalize: set", parallel: true) { record in
            for (field, value) in assignments { record[field] = value }
            return []
        }
    }
}
