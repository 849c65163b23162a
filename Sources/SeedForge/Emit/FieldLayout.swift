/// Where a structured output (`json`, `ndjson`, `pages`) writes each of its fields, so a
/// dataset can have exactly the shape an app's `Codable` model decodes. An entry of the
/// output's `fields:` list is a field name (written under that name), or
///
/// ```yaml
/// fields:
///   - country                              # under its own name
///   - {field: id, as: _id}                 # under another name
///   - {field: longitude, at: /coord/lon}   # at a JSON Pointer: {"coord": {"lon": ...}}
///   - {field: latitude, at: /coord/lat}
///   - {field: latitude, at: /coordinates/0}    # a whole-number token is an array position
/// ```
///
/// A field may be written at several places. The layout is compiled once, when the
/// pipeline is loaded, into a tree of slots: objects keep their keys in the order they are
/// first named, arrays run from position 0 without gaps. Two fields at one place, a field
/// inside another field's place, an object and an array at one path, or a gap in an array
/// are definition errors naming the YAML line. Rendering walks the tree; nothing is looked
/// up by name while data flows.
public struct FieldLayout: Sendable, Equatable {
    /// A place in a written record.
    public enum Node: Sendable, Equatable {
        /// The value of the output's field at this position of its field list.
        case value(Int)
        case object([Member])
        case array([Node])
    }

    public struct Member: Sendable, Equatable {
        public let key: String
        public let node: Node
    }

    /// The record's keys, in order, and what each holds.
    public let members: [Member]
    /// Where each position of the output's field list is written (a JSON Pointer's tokens).
    public let places: [[FieldPath.Component]]

    /// The record as the JSON object this layout writes.
    public func object(_ record: Record, ids: [FieldID]) -> Value {
        value(.object(members), record, ids)
    }

    /// The value a node writes for a record: a field's value, or the object or array
    /// built from the fields below it.
    public func value(_ node: Node, _ record: Record, _ ids: [FieldID]) -> Value {
        switch node {
        case .value(let position):
            return record[ids[position]]
        case .object(let members):
            var object = JSONObject()
            for member in members { object.appendUnchecked(member.key, value(member.node, record, ids)) }
            return .object(object)
        case .array(let nodes):
            return .array(nodes.map { value($0, record, ids) })
        }
    }

    /// Writes what a node holds for a record straight into `writer`, without building
    /// values: compact (`indent` nil, as `JSONWriter.write`) or indented at `indent` with
    /// exactly the bytes `JSONWriter.writePretty` gives the value `value(node, ...)`.
    public func write(_ node: Node, _ record: Record, _ ids: [FieldID], into writer: inout JSONWriter, indent: Int?) {
        switch node {
        case .value(let position):
            if let indent {
                writer.writePretty(record[ids[position]], indent: indent)
            } else {
                writer.write(record[ids[position]])
            }
        case .object(let members):
            // Never empty: a layout's objects hold at least the entry that made them.
            writer.append(byte: UInt8(ascii: "{"))
            if indent != nil { writer.append(byte: 0x0A) }
            for (index, member) in members.enumerated() {
                if index > 0 { writer.append(byte: UInt8(ascii: ",")) }
                if let indent {
                    if index > 0 { writer.append(byte: 0x0A) }
                    writer.pad(indent + 1)
                    writer.writeString(member.key)
                    writer.append(": ")
                } else {
                    writer.writeString(member.key)
                    writer.append(byte: UInt8(ascii: ":"))
                }
                write(member.node, record, ids, into: &writer, indent: indent.map { $0 + 1 })
            }
            if let indent {
                writer.append(byte: 0x0A)
                writer.pad(indent)
            }
            writer.append(byte: UInt8(ascii: "}"))
        case .array(let nodes):
            // An array of plain values stays on one line, as writePretty keeps it.
            let oneLine =
                indent == nil
                || nodes.allSatisfy { node in
                    if case .value(let position) = node { return JSONWriter.isScalar(record[ids[position]]) }
                    return false
                }
            writer.append(byte: UInt8(ascii: "["))
            if !oneLine { writer.append(byte: 0x0A) }
            for (index, element) in nodes.enumerated() {
                if index > 0 { writer.append(indent == nil ? "," : oneLine ? ", " : ",\n") }
                if oneLine {
                    write(element, record, ids, into: &writer, indent: nil)
                } else {
                    writer.pad(indent! + 1)
                    write(element, record, ids, into: &writer, indent: indent! + 1)
                }
            }
            if !oneLine {
                writer.append(byte: 0x0A)
                writer.pad(indent!)
            }
            writer.append(byte: UInt8(ascii: "]"))
        }
    }

    /// Where the field is first written, as a JSON Pointer into the record (nil when the
    /// output does not write it).
    public func pointer(of field: FieldID, ids: [FieldID]) -> String? {
        ids.firstIndex(of: field).map { FieldPath.pointer(places[$0]) }
    }
}

// MARK: - Reading `fields:` and compiling it

extension FieldLayout {
    /// One entry of `fields:`: a field and the place it is written at.
    struct Entry {
        let field: FieldID
        let name: String
        let place: [FieldPath.Component]
        /// Whether the entry moves the field (`as:` or `at:`) rather than naming it.
        let moved: Bool
        let node: ConfigNode
    }

    static let entryKeys = ["field", "as", "at"]

    /// Reads an output's `fields:` (absent: every field of the collection). Formats whose
    /// records are JSON objects (`structured`) accept `{field, as}` and `{field, at}`
    /// entries and the same field at several places; the layout is nil when every field
    /// is written once under its own name, so such outputs render exactly as before.
    static func load(
        _ config: ConfigMap, collection: CollectionID, plan: PipelinePlan, format: String, structured: Bool
    ) throws -> (ids: [FieldID], layout: FieldLayout?) {
        guard let node = config["fields"] else {
            return (plan.schema(collection).fields.indices.map(FieldID.init(index:)), nil)
        }
        guard case .sequence = node.node else {
            return ([try plan.field(config, key: "fields", in: collection)], nil)
        }
        let nodes = try node.list("'fields' in \(config.what)")
        guard !nodes.isEmpty else { throw node.error("'fields' in \(config.what) must name at least one field") }
        var entries: [Entry] = []
        for entryNode in nodes {
            let entry = try self.entry(entryNode, collection: collection, plan: plan)
            if entry.moved, !structured {
                throw entryNode.error(
                    """
                    a \(format) output writes flat columns named after their fields; 'as' and 'at' apply to json, \
                    ndjson and pages outputs: write '\(entry.name)' here, or rename the field with a step
                    """)
            }
            // (Flat formats have no moved entries: a field there is listed once.)
            if !entry.moved, entries.contains(where: { !$0.moved && $0.field == entry.field }) {
                throw entryNode.error("field '\(entry.name)' is listed twice in 'fields'")
            }
            entries.append(entry)
        }
        let ids = entries.map(\.field)
        guard entries.contains(where: \.moved) else { return (ids, nil) }
        return (ids, try compile(entries))
    }

    static func entry(_ node: ConfigNode, collection: CollectionID, plan: PipelinePlan) throws -> Entry {
        guard case .mapping = node.node else {
            let name = try node.string("each entry of 'fields'")
            return Entry(
                field: try plan.field(name, in: collection, at: node), name: name, place: [.key(name)], moved: false,
                node: node)
        }
        let map = try node.mapping("an entry of 'fields'")
        let errors = map.unknownKeys(allowed: entryKeys)
        if !errors.isEmpty { throw DefinitionErrors(errors) }
        let fieldNode = try map.require("field")
        let name = try fieldNode.string("'field' of an entry of 'fields'")
        let field = try plan.field(name, in: collection, at: fieldNode)
        switch (map["as"], map["at"]) {
        case (nil, nil):
            return Entry(field: field, name: name, place: [.key(name)], moved: false, node: node)
        case (_?, _?):
            throw map.keyNode("at")!.error("an entry of 'fields' takes 'as' (a key) or 'at' (a JSON Pointer), not both")
        case (let asNode?, nil):
            let key = try asNode.string("'as' of field '\(name)'")
            guard !key.isEmpty else {
                throw asNode.error("'as' of field '\(name)' is empty; give the key to write it under")
            }
            return Entry(field: field, name: name, place: [.key(key)], moved: true, node: node)
        case (nil, let atNode?):
            let pointer = try atNode.string("'at' of field '\(name)'")
            guard pointer.hasPrefix("/"), let path = FieldPath(parsing: pointer) else {
                throw atNode.error(
                    "'at' of field '\(name)' must be a JSON Pointer such as /coord/lat, found '\(pointer)'; to write it under another name use 'as'"
                )
            }
            if path.components.contains(.key("")) {
                throw atNode.error("'at' of field '\(name)': '\(pointer)' holds an empty key")
            }
            if case .index = path.components[0] {
                throw atNode.error(
                    "'at' of field '\(name)': a record is written as an object, so '\(pointer)' must start with a key, not an array position"
                )
            }
            return Entry(field: field, name: name, place: path.components, moved: true, node: node)
        }
    }

    /// A slot of the tree being built, with the entry that made it (for messages).
    private indirect enum Draft {
        case value(Int)
        case object(keys: [String], children: [String: Draft])
        case array(children: [Int: Draft])
    }

    /// Builds the tree of slots, refusing every collision with the YAML line of the entry
    /// that causes it.
    static func compile(_ entries: [Entry]) throws -> FieldLayout {
        var root = Draft.object(keys: [], children: [:])
        for (position, entry) in entries.enumerated() {
            try insert(entry.place[...], position: position, entries: entries, into: &root, above: [])
        }
        guard case .object(let keys, let children) = root else { fatalError("the root of a layout is an object") }
        let members = try keys.map {
            Member(key: $0, node: try finish(children[$0]!, at: [.key($0)], entries: entries))
        }
        return FieldLayout(members: members, places: entries.map(\.place))
    }

    private static func insert(
        _ path: ArraySlice<FieldPath.Component>, position: Int, entries: [Entry], into draft: inout Draft,
        above: [FieldPath.Component]
    ) throws {
        let entry = entries[position]
        let component = path.first!
        let here = above + [component]
        func taken(by other: Int) -> DefinitionError {
            let first = entries[other]
            return entry.node.error(
                "'\(FieldPath.pointer(here))' is written twice: field '\(first.name)' (line \(first.node.line)) is there already, so field '\(entry.name)' cannot be"
            )
        }
        func existing(_ child: Draft?) throws -> Draft? {
            guard let child else { return nil }
            if path.count == 1 {
                // The place itself: it must be free.
                if case .value(let other) = child { throw taken(by: other) }
                let other = firstPosition(in: child)
                throw entry.node.error(
                    "'\(FieldPath.pointer(here))' holds an \(kind(of: child)) (field '\(entries[other].name)' at line \(entries[other].node.line) is inside it), so field '\(entry.name)' cannot be written there"
                )
            }
            if case .value(let other) = child {
                throw entry.node.error(
                    "field '\(entry.name)' cannot go inside '\(FieldPath.pointer(here))': field '\(entries[other].name)' (line \(entries[other].node.line)) is written there"
                )
            }
            return child
        }
        func container(for next: FieldPath.Component, _ child: Draft?) throws -> Draft {
            let wanted: Draft
            switch next {
            case .key: wanted = .object(keys: [], children: [:])
            case .index: wanted = .array(children: [:])
            }
            guard let child else { return wanted }
            switch (child, next) {
            case (.object, .key), (.array, .index): return child
            default:
                let other = firstPosition(in: child)
                throw entry.node.error(
                    """
                    '\(FieldPath.pointer(here))' is an \(kind(of: child)) (field '\(entries[other].name)' at line \(entries[other].node.line)), \
                    but field '\(entry.name)' at '\(FieldPath.pointer(entry.place))' makes it an \(kind(of: wanted))
                    """)
            }
        }
        func placed(_ child: Draft?) throws -> Draft {
            let child = try existing(child)
            if path.count == 1 { return .value(position) }
            var node = try container(for: path[path.startIndex + 1], child)
            try insert(path.dropFirst(), position: position, entries: entries, into: &node, above: here)
            return node
        }
        switch (draft, component) {
        case (.object(var keys, var children), .key(let key)):
            if children[key] == nil { keys.append(key) }
            children[key] = try placed(children[key])
            draft = .object(keys: keys, children: children)
        case (.array(var children), .index(let index)):
            children[index] = try placed(children[index])
            draft = .array(children: children)
        default:
            fatalError("container(for:) matched the container to the component")
        }
    }

    private static func kind(of draft: Draft) -> String {
        switch draft {
        case .value: return "value"
        case .object: return "object"
        case .array: return "array"
        }
    }

    /// The first entry (in `fields:` order) written inside a slot.
    private static func firstPosition(in draft: Draft) -> Int {
        switch draft {
        case .value(let position): return position
        case .object(_, let children): return children.values.map(firstPosition).min()!
        case .array(let children): return children.values.map(firstPosition).min()!
        }
    }

    /// The finished node; an array must hold positions 0..<count, without gaps.
    private static func finish(_ draft: Draft, at path: [FieldPath.Component], entries: [Entry]) throws -> Node {
        switch draft {
        case .value(let position):
            return .value(position)
        case .object(let keys, let children):
            return .object(
                try keys.map {
                    Member(key: $0, node: try finish(children[$0]!, at: path + [.key($0)], entries: entries))
                })
        case .array(let children):
            let count = children.keys.max()! + 1
            if let missing = (0..<count).first(where: { children[$0] == nil }) {
                let first = entries[firstPosition(in: draft)]
                let written = children.keys.sorted().map(String.init).joined(separator: ", ")
                throw first.node.error(
                    """
                    the array at '\(FieldPath.pointer(path))' has positions \(written) but not \(missing): \
                    array positions must run from 0 without gaps
                    """)
            }
            return .array(try (0..<count).map { try finish(children[$0]!, at: path + [.index($0)], entries: entries) })
        }
    }
}
