/// The declared type of a field. Checked when a source maps raw values into records.
public enum FieldType: String, CaseIterable, Sendable {
    case string
    case number
    /// An exact decimal (money): written as a JSON number with exactly its digits.
    case decimal
    case integer
    case boolean
    case array
    case object
    case any
}

/// A field of a collection: its name in the output, its type, and where it came from.
public struct FieldSpec: Sendable {
    public var name: String
    public var type: FieldType
    /// Where the value sits inside the source record; nil for fields computed by a step.
    public var sourcePath: FieldPath?
    /// The collections whose source files hold this field's value under its name: the
    /// collection whose source declares it, and those an `append` moved into this one with
    /// the field. A record read for any other collection (a field computed after an append)
    /// has no source path for it, whatever its own source declares under that name.
    /// Decided when the pipeline is loaded; a run never changes where a value came from.
    public var declaredBy: Set<CollectionID> = []

    public init(name: String, type: FieldType, sourcePath: FieldPath?) {
        self.name = name
        self.type = type
        self.sourcePath = sourcePath
    }
}

/// A position in a record's field list, resolved from a name when the pipeline is loaded,
/// so stages never look fields up by string while data flows.
public struct FieldID: Hashable, Sendable {
    public let index: Int
}

/// The ordered fields of one collection. Steps that add fields extend it when the
/// pipeline is loaded; the order is the order fields appear in every output.
public struct Schema: Sendable {
    public private(set) var fields: [FieldSpec] = []
    /// The field that identifies a record, if the source declares one.
    public var idField: FieldID?

    public init(fields: [FieldSpec] = []) {
        for field in fields { _ = add(field) }
    }

    public func id(of name: String) -> FieldID? {
        fields.firstIndex(where: { $0.name == name }).map(FieldID.init(index:))
    }

    public subscript(id: FieldID) -> FieldSpec { fields[id.index] }

    public var names: [String] { fields.map(\.name) }

    /// Every field declared as string (or any): what text normalisers apply to by default.
    public var textFields: [FieldID] {
        fields.indices.filter { [.string, .any].contains(fields[$0].type) }.map(FieldID.init(index:))
    }

    /// Records that the fields of `collection` declared in its source are read there.
    mutating func declare(by collection: CollectionID) {
        for index in fields.indices where fields[index].sourcePath != nil { fields[index].declaredBy = [collection] }
    }

    /// Records that the records of `other`, whose fields are `from`, now hold this schema's
    /// fields of the same names (an `append`): their values come from `other`'s sources.
    mutating func carry(_ from: Schema) {
        for index in fields.indices {
            guard let id = from.id(of: fields[index].name) else { continue }
            fields[index].declaredBy.formUnion(from[id].declaredBy)
        }
    }

    /// Adds a field, or returns the existing one with that name.
    @discardableResult
    public mutating func add(_ field: FieldSpec) -> FieldID {
        if let existing = id(of: field.name) { return existing }
        fields.append(field)
        return FieldID(index: fields.count - 1)
    }
}
