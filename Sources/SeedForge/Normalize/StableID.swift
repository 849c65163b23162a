import Foundation

/// `normalize: stable-id`: gives records without an id one derived from their content,
/// identical on every run and machine.
///
/// Algorithm (version 1): for each field in `from`, in order, take its text: strings are
/// NFC-normalised, trimmed, inner white space collapsed to one space and lower-cased;
/// null is the empty text; other values are their compact JSON. Join the texts with the
/// unit separator U+001F, hash the UTF-8 bytes with SHA-256, and take the first 16 hex
/// digits (64 bits), after `prefix`. Two records whose texts differ but whose ids
/// collide, or a derived id equal to an id given explicitly to a different record, are
/// `stable-id-collision` findings and the later record is rejected.
public struct StableID: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "stable-id",
        summary:
            "Fill a missing id with a hash of content fields (SHA-256 of the normalised texts), stable across runs and machines.",
        keys: [
            CommonKeys.collection,
            KeySpec(
                "field", required: true,
                "the id field to fill when it is null or blank; a field the collection does not have is added (text, derived for every record)"
            ),
            KeySpec("from", required: true, "the fields whose content makes the id, e.g. [name, address]"),
            KeySpec("prefix", "text put before the hash (default none)"),
        ],
        details: #"""
            See [stable ids](#stable-ids).
            """#,
        example: """
            - normalize: stable-id
              collection: shops
              field: id
              from: [name, address]
              prefix: shop-
            """)

    public let collection: CollectionID
    let field: FieldID
    let from: [FieldID]
    let prefix: String

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        from = try plan.fields(config, key: "from", in: collection)
        // A source without ids gets the field: every record's id is then derived.
        let fieldNode = try config.require("field")
        let name = try fieldNode.string("'field' in \(config.what)")
        field =
            try plan.schema(collection).id(of: name)
            ?? plan.addField(name, type: .string, to: collection, at: fieldNode)
        prefix = try config.string("prefix") ?? ""
    }

    public static func canonicalText(_ value: Value) -> String {
        switch value {
        case .null: return ""
        case .string(let text): return Trim.collapsed(text.precomposedStringWithCanonicalMapping).lowercased()
        default: return JSONWriter.compact(value)
        }
    }

    public static func derive(_ values: [Value], prefix: String) -> (id: String, content: String) {
        let content = values.map(canonicalText).joined(separator: "\u{1F}")
        return (prefix + String(SHA256.hex(content.utf8).prefix(16)), content)
    }

    /// The ids given explicitly are read before any record changes.
    public static let preparesFromOwnRecords = true

    public func change(_ state: RunState) throws -> RecordChange {
        // Ids given explicitly, to detect a derived id that lands on one of them.
        var explicit: [String: Record] = [:]
        try state.forEachRecord(collection) { record in
            if case .string(let id) = record[field], !id.allSatisfy(\.isWhitespace) {
                explicit[id] = explicit[id] ?? record
            }
        }
        var derivedContent: [String: String] = [:]
        return RecordChange(step: "normalize: stable-id") { record in
            switch record[field] {
            case .null: break
            case .string(let text) where text.allSatisfy(\.isWhitespace): break
            default: return []
            }
            let (id, content) = Self.derive(from.map { record[$0] }, prefix: prefix)
            let name = state.schemas[loaded: collection][field].name
            if let other = explicit[id] {
                return [
                    Finding(
                        rule: .stableIDCollision,
                        message:
                            "derived \(name) '\(id)' equals the id given to the record at \(other.origin.location.brief)",
                        location: record.origin.location, field: name, value: .string(id))
                ]
            }
            if let earlier = derivedContent[id], earlier != content {
                return [
                    Finding(
                        rule: .stableIDCollision,
                        message:
                            "derived \(name) '\(id)' collides with another record's derived id (different content, same hash)",
                        location: record.origin.location, field: name, value: .string(id))
                ]
            }
            derivedContent[id] = content
            record[field] = .string(id)
            return []
        }
    }
}
