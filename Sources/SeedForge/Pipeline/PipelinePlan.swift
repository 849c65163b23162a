/// What is known while a pipeline definition is loaded: the collections and their
/// schemas as each step sees them. Steps resolve field names here, once, into `FieldID`s,
/// and declare the fields they add; a wrong name is a definition error with a suggestion.
public final class PipelinePlan {
    public let file: String
    /// The folder relative paths in the definition are resolved against.
    public let baseDirectory: String
    public private(set) var schemas: [CollectionID: Schema] = [:]
    public private(set) var collectionOrder: [CollectionID] = []
    /// The first key of the last `sort` of each collection: what order its records leave in.
    public internal(set) var sortedBy: [CollectionID: (field: FieldID, exact: Bool, descending: Bool)] = [:]

    public init(file: String, baseDirectory: String) {
        self.file = file
        self.baseDirectory = baseDirectory
    }

    /// Collections made by steps (statistics), not read from sources.
    public private(set) var derivedCollections: Set<CollectionID> = []
    /// Collections only looked up by steps (`reference: true`): no output is required.
    public internal(set) var referenceCollections: Set<CollectionID> = []
    /// Collections whose records an `append` step moved into another, and where to.
    public internal(set) var appendedInto: [CollectionID: CollectionID] = [:]
    /// Fields that identify a collection's records by construction (a `group-stats`
    /// collection's group fields): the key its changes are matched by unless declared.
    public internal(set) var naturalKeys: [CollectionID: [FieldID]] = [:]
    /// How `search-key` steps folded their key fields, by `fieldKey` (for prefix indexes).
    public internal(set) var keyFoldings: [String: KeyFolding] = [:]

    static func fieldKey(_ collection: CollectionID, _ field: FieldID) -> String { "\(collection)\u{1F}\(field.index)" }

    func declareDerivedCollection(_ name: CollectionID, schema: Schema) {
        declareCollection(name, schema: schema)
        derivedCollections.insert(name)
    }

    func declareCollection(_ name: CollectionID, schema: Schema) {
        if schemas[name] == nil { collectionOrder.append(name) }
        schemas[name] = schema
    }

    /// Declares a source's collection: its fields are read from its own files.
    func declareSourceCollection(_ name: CollectionID, schema: Schema) {
        var schema = schema
        schema.declare(by: name)
        declareCollection(name, schema: schema)
    }

    /// The records of `collection` move into `target` (`append`): the target's fields of
    /// the same names may now hold values read from `collection`'s sources.
    func carry(_ collection: CollectionID, into target: CollectionID) {
        guard var schema = schemas[target] else { return }
        schema.carry(self.schema(collection))
        schemas[target] = schema
    }

    /// Resolves the collection named under `key` (default `collection`).
    public func collection(_ config: ConfigMap, key: String = "collection") throws -> CollectionID {
        let node = try config.require(key)
        let name = try node.string("'\(key)' in \(config.what)")
        let names = collectionOrder.map(\.name)
        guard schemas[CollectionID(name)] != nil else {
            throw node.error(
                "unknown collection '\(name)' in \(config.what)\(Suggestion.phrase(for: name, in: names)); collections are the names under 'sources': \(names.joined(separator: ", "))"
            )
        }
        return CollectionID(name)
    }

    public func schema(_ collection: CollectionID) -> Schema { schemas[collection] ?? Schema() }

    /// Resolves the collection named by `from` of an enricher: another collection than
    /// the one the step works on.
    public func fromCollection(_ config: ConfigMap, other collection: CollectionID) throws -> CollectionID {
        let from = try self.collection(config, key: "from")
        if from == collection {
            throw config["from"]!.error("'from' must name another collection than '\(collection)'")
        }
        return from
    }

    /// Resolves one field name of `collection`, pointing at `node` when it is unknown.
    public func field(_ name: String, in collection: CollectionID, at node: ConfigNode) throws -> FieldID {
        let schema = self.schema(collection)
        guard let id = schema.id(of: name) else {
            throw node.error(
                "unknown field '\(name)' in collection '\(collection)'\(Suggestion.phrase(for: name, in: schema.names)); its fields are: \(schema.names.joined(separator: ", "))"
            )
        }
        return id
    }

    /// Resolves the field named under `key`.
    public func field(_ config: ConfigMap, key: String, in collection: CollectionID) throws -> FieldID {
        let node = try config.require(key)
        return try field(node.string("'\(key)' in \(config.what)"), in: collection, at: node)
    }

    /// Resolves the fields listed under `key` (one name or a list).
    public func fields(_ config: ConfigMap, key: String, in collection: CollectionID) throws -> [FieldID] {
        let node = try config.require(key)
        if case .sequence = node.node {
            let entries = try node.list("'\(key)' in \(config.what)")
            guard !entries.isEmpty else { throw node.error("'\(key)' in \(config.what) must name at least one field") }
            var ids: [FieldID] = []
            for entry in entries {
                let id = try field(entry.string("each entry of '\(key)'"), in: collection, at: entry)
                guard !ids.contains(id) else {
                    throw entry.error("field '\(schema(collection)[id].name)' is listed twice in '\(key)'")
                }
                ids.append(id)
            }
            return ids
        }
        return [try field(node.string("'\(key)' in \(config.what)"), in: collection, at: node)]
    }

    /// The fields listed under `field`, or every text field of the collection when the
    /// key is absent (what text normalisers work on by default).
    public func textFields(_ config: ConfigMap, in collection: CollectionID) throws -> [FieldID] {
        if config["field"] != nil { return try fields(config, key: "field", in: collection) }
        return schema(collection).textFields
    }

    /// Adds the field named under `key` (`into:` of the steps that write a new field),
    /// an error at that key when it is missing or taken.
    public func addField(
        _ config: ConfigMap, key: String = "into", type: FieldType, to collection: CollectionID
    ) throws -> FieldID {
        let node = try config.require(key)
        return try addField(node.string("'\(key)'"), type: type, to: collection, at: node)
    }

    /// Adds a computed field to a collection. A name the collection already has is a
    /// definition error: a step never overwrites a field silently.
    @discardableResult
    public func addField(
        _ name: String, type: FieldType, to collection: CollectionID, at node: ConfigNode
    ) throws -> FieldID {
        var schema = self.schema(collection)
        guard schema.id(of: name) == nil else {
            throw node.error(
                "collection '\(collection)' already has a field '\(name)'; a step cannot overwrite it, choose another name"
            )
        }
        let id = schema.add(FieldSpec(name: name, type: type, sourcePath: nil))
        schemas[collection] = schema
        return id
    }
}
