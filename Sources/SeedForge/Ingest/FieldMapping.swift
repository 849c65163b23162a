/// Turns a raw JSON object from a source into a typed record: each declared field is
/// taken from its path (`from:`), checked against its declared type, and stored in
/// schema order. A value of the wrong type is a `type` finding that rejects the record.
public struct FieldMapping: Sendable {
    public let fields: [FieldSpec]
    public let unknownFields: UnknownFields
    /// The fields' paths as a tree, for reading records without building them whole.
    private(set) var tree: FieldTree?
    /// Each field's path by its name (what findings on the source's records point at).
    public let pathsByName: [String: FieldPath]
    /// Values a record of the collection holds once every step has added its fields: a
    /// record is made with room for them, so a step adding a field never reallocates it.
    public internal(set) var capacity: Int
    /// Text fields later steps add to a record of the collection (a search key): a row is
    /// made with room for as much text again as its longest, for each, so that adding
    /// them does not reallocate it.
    public internal(set) var addedTextFields = 0
    /// The fields' types in order (read once a record, without copying the specs).
    let types: [FieldType]

    public init(fields: [FieldSpec], unknownFields: UnknownFields) {
        self.fields = fields
        self.unknownFields = unknownFields
        capacity = fields.count
        types = fields.map(\.type)
        tree = FieldTree(paths: fields.compactMap(\.sourcePath))
        pathsByName = Dictionary(
            fields.compactMap { field in field.sourcePath.map { (field.name, $0) } },
            uniquingKeysWith: { first, _ in first })
    }

    /// This mapping with a tree of its own (`FieldTree(copying:)`), for one thread's parsing.
    func ownTree() -> FieldMapping {
        var copy = self
        copy.tree = tree.map(FieldTree.init(copying:))
        return copy
    }

    /// Reads the record at the reader's position straight into a record when it is
    /// clean (an object whose declared fields all have their types, no repeated or
    /// unwanted keys); returns nil otherwise, with the reader past the value, and the
    /// caller reads it again with the general reader to report why.
    ///
    /// `values` gathers the record's values (one builder for a run of records: no
    /// allocation per record but the record's row).
    public func readClean(_ reader: inout JSONReader, origin: Origin, values: inout RowBuilder) throws -> Record? {
        guard let tree, fields.count == tree.fieldCount else { return nil }
        let count = fields.count
        values.reset(count: count)
        guard try reader.readFields(tree.root, into: &values, allowUnknown: unknownFields == .ignore) else {
            return nil
        }
        for index in 0..<count where !Self.fitsAsRead(values.tag(at: index), types[index]) {
            guard let converted = Self.convert(values.value(at: index), to: types[index]) else { return nil }
            values.set(index, converted)
        }
        return Record(row: values.make(width: capacity, textFieldsAdded: addedTextFields), origin: origin)
    }

    /// Whether a value of `tag` is already what `convert` makes of it for `type`.
    @inline(__always)
    static func fitsAsRead(_ tag: RecordCodec.Tag, _ type: FieldType) -> Bool {
        switch (type, tag) {
        case (_, .null), (.any, _), (.string, .string), (.boolean, .true), (.boolean, .false), (.array, .array),
            (.object, .object), (.number, .int), (.number, .double), (.number, .decimal), (.integer, .int),
            (.decimal, .decimal):
            return true
        default: return false
        }
    }

    public enum UnknownFields: String, CaseIterable, Sendable {
        case ignore, warn, reject
    }

    /// Reads the `fields:` mapping of a source: `name: type` or `name: {type:, from:}`.
    /// Returns every field it could read (a field with a bad type counts as `any`, so
    /// later steps naming it do not add confusing errors) and the errors found.
    static func load(_ config: ConfigMap, what: String) throws -> (fields: [FieldSpec], errors: [DefinitionError]) {
        let node = try config.require("fields")
        let mapping = try node.mapping("'fields' of \(what)")
        var specs: [FieldSpec] = []
        var errors: [DefinitionError] = []
        for (keyNode, valueNode) in mapping.mapping {
            let key = ConfigNode(node: keyNode, file: config.file)
            let value = ConfigNode(node: valueNode, file: config.file)
            do {
                let name = try key.string("field name")
                let typeNode: ConfigNode
                var path = FieldPath(components: [.key(name)])
                if case .mapping = value.node {
                    let spec = try value.mapping("field '\(name)'")
                    errors += spec.unknownKeys(allowed: ["type", "from"])
                    typeNode = try spec.require("type")
                    if let fromNode = spec["from"] {
                        let text = try fromNode.string("'from' of field '\(name)'")
                        guard let parsed = FieldPath(parsing: text) else {
                            throw fromNode.error(
                                "'from' of field '\(name)' must be a JSON Pointer such as /coordinates/0")
                        }
                        if let problem = parsed.wildcardProblem {
                            throw fromNode.error("'from' of field '\(name)': \(problem)")
                        }
                        path = parsed
                    }
                } else {
                    typeNode = value
                }
                let typeName = try typeNode.string("type of field '\(name)'")
                let type = FieldType(rawValue: typeName)
                specs.append(FieldSpec(name: name, type: type ?? .any, sourcePath: path))
                if type == nil {
                    let names = FieldType.allCases.map(\.rawValue)
                    throw typeNode.error(
                        "unknown type '\(typeName)' for field '\(name)'\(Suggestion.phrase(for: typeName, in: names)); types are: \(names.joined(separator: ", "))"
                    )
                }
            } catch let error as DefinitionError {
                errors.append(error)
            }
        }
        if specs.isEmpty && errors.isEmpty { errors.append(node.error("'fields' of \(what) declares no field")) }
        return (specs, errors)
    }

    /// Maps one raw value into a record and the findings about it; a finding of error
    /// severity rejects the record, a warning is reported and the record kept.
    public func map(_ raw: Value, origin: Origin) -> (record: Record?, findings: [Finding]) {
        guard case .object(let object) = raw else {
            return (
                nil,
                [
                    Finding(
                        rule: .notAnObject, message: "expected a JSON object for a record, found \(raw.typeName)",
                        location: origin.location, value: raw)
                ]
            )
        }
        var values: [Value] = []
        values.reserveCapacity(capacity)
        var findings: [Finding] = []
        for field in fields {
            let value = raw.value(at: field.sourcePath!) ?? .null
            if let converted = Self.convert(value, to: field.type) {
                values.append(converted)
            } else {
                values.append(value)
                findings.append(
                    Finding(
                        rule: .type,
                        message:
                            "field '\(field.name)' must be \(Self.article(field.type)), found \(value.typeName) \(RuleFields.describe(value))",
                        location: origin.location(of: field.sourcePath), field: field.name, value: value))
            }
        }
        if unknownFields != .ignore {
            let known = fields.compactMap { field -> String? in
                if case .key(let key)? = field.sourcePath?.components.first { return key }
                return nil
            }
            for key in object.keys where !known.contains(key) {
                findings.append(
                    Finding(
                        rule: .unknownField, severity: unknownFields == .warn ? .warning : .error,
                        message:
                            "field '\(key)' is not declared in the source's 'fields'\(Suggestion.phrase(for: key, in: known))",
                        location: origin.location(of: FieldPath(components: [.key(key)])), field: key,
                        value: object[key]))
            }
        }
        return (Record(values: values, width: capacity, origin: origin), findings)
    }

    /// Whether `raw` maps without any finding (cheap check, no locations computed).
    public func isClean(_ raw: Value) -> Bool {
        guard case .object(let object) = raw else { return false }
        for field in fields where Self.convert(raw.value(at: field.sourcePath!) ?? .null, to: field.type) == nil {
            return false
        }
        if unknownFields != .ignore {
            let known = Set(
                fields.compactMap { field -> String? in
                    if case .key(let key)? = field.sourcePath?.components.first { return key }
                    return nil
                })
            if object.keys.contains(where: { !known.contains($0) }) { return false }
        }
        return true
    }

    /// The value converted to `type`, nil when it does not fit. Null fits every type
    /// (whether it may be null is the `required` rule's business). An integral number
    /// written as a float (`136256.0`) fits `integer`.
    static func convert(_ value: Value, to type: FieldType) -> Value? {
        switch (type, value) {
        case (_, .null), (.any, _): return value
        case (.string, .string), (.boolean, .bool), (.array, .array), (.object, .object): return value
        case (.number, .int), (.number, .double), (.number, .decimal), (.integer, .int), (.decimal, .decimal):
            return value
        case (.decimal, .int(let int)): return .decimal(String(int))
        // A JSON number with a fraction, at its shortest round-trip digits (exact for the
        // up to 15 significant digits of prices and ratings): 40.50 is 40.5, never 40.499….
        case (.decimal, .double): return ExactNumber(value).map { .decimal($0.text) }
        case (.integer, .double(let double)):
            guard double.rounded() == double, abs(double) < 9.007e15 else { return nil }
            return .int(Int64(double))
        default: return nil
        }
    }

    static func article(_ type: FieldType) -> String {
        switch type {
        case .integer, .array, .object: return "an \(type.rawValue)"
        case .any: return "any value"
        default: return "a \(type.rawValue)"
        }
    }
}
