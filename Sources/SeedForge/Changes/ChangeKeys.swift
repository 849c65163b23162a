/// The key each collection's records are matched by when a run compares its dataset with
/// the previous one: `changes:` of the pipeline when it declares one, else the fields a
/// `group-stats` collection is grouped by, else the source's `id`.
///
///     changes:
///       trips: {key: [name, startDate]}
enum ChangeKeys {
    static let keys = ["key"]

    /// The key of every collection the dataset holds that has one.
    static func load(_ top: ConfigMap, plan: PipelinePlan, written: [CollectionID]) throws -> [CollectionID: [FieldID]]
    {
        var declared: [CollectionID: [FieldID]] = [:]
        if let node = top["changes"] {
            let map = try node.mapping("'changes'")
            var errors: [DefinitionError] = []
            for (keyNode, valueNode) in map.mapping {
                let nameNode = ConfigNode(node: keyNode, file: map.file)
                do {
                    let name = try nameNode.string("a collection under 'changes'")
                    let collection = CollectionID(name)
                    guard written.contains(collection) else {
                        throw nameNode.error(
                            "'\(name)' under 'changes' is not a collection the dataset holds\(Suggestion.phrase(for: name, in: written.map(\.name))); collections: \(written.map(\.name).joined(separator: ", "))"
                        )
                    }
                    let config = try ConfigNode(node: valueNode, file: map.file).mapping("changes of '\(name)'")
                    let unknown = config.unknownKeys(allowed: keys)
                    if !unknown.isEmpty { throw DefinitionErrors(unknown) }
                    let keyNode = try config.require("key")
                    let fields = try keyNode.strings("'key' of '\(name)'")
                    guard !fields.isEmpty, Set(fields).count == fields.count else {
                        throw keyNode.error("'key' of '\(name)' must name at least one field, each once")
                    }
                    let schema = plan.schema(collection)
                    declared[collection] = try fields.map { field in
                        guard let id = schema.id(of: field) else {
                            throw keyNode.error(
                                "'key' of '\(name)' names unknown field '\(field)'\(Suggestion.phrase(for: field, in: schema.names))"
                            )
                        }
                        return id
                    }
                } catch let error as DefinitionError {
                    errors.append(error)
                } catch let list as DefinitionErrors {
                    errors += list.errors
                }
            }
            if !errors.isEmpty { throw DefinitionErrors(errors) }
        }
        var keys: [CollectionID: [FieldID]] = [:]
        for collection in written {
            if let key = declared[collection] ?? plan.naturalKeys[collection]
                ?? plan.schema(collection).idField.map({ [$0] })
            {
                keys[collection] = key
            }
        }
        return keys
    }
}
