/// The source paths of a mapping's fields as a tree, so a record's declared fields can be
/// read straight from the bytes (`JSONReader.readFields`) while everything else is
/// skipped without building values. Only built when every path is plain: no path is a
/// prefix of another, and array positions are written canonically.
public struct FieldTree: Sendable {
    public indirect enum Node: Sendable {
        case field(Int)
        case container([Child])
    }

    public struct Child: Sendable {
        /// The key's UTF-8 bytes (for arrays: the position in decimal).
        public let key: [UInt8]
        public let node: Node
    }

    public let root: [Child]
    /// How many fields the tree holds.
    public let fieldCount: Int

    public init?(paths: [FieldPath]) {
        fieldCount = paths.count
        var root: [Child] = []
        for (index, path) in paths.enumerated() {
            let keys = path.components.map { component -> [UInt8] in
                switch component {
                case .key(let key): return Array(key.utf8)
                case .index(let position): return Array(String(position).utf8)
                }
            }
            // A key that looks like a non-canonical position ("01") behaves differently
            // in arrays and objects: leave such mappings to the general reader.
            for case .key(let key) in path.components where Int(key) != nil && String(Int(key)!) != key { return nil }
            guard !keys.isEmpty, let updated = Self.insert(keys[...], field: index, into: root) else { return nil }
            root = updated
        }
        self.root = root
    }

    static func insert(_ keys: ArraySlice<[UInt8]>, field: Int, into children: [Child]) -> [Child]? {
        var children = children
        let key = keys.first!
        let existing = children.firstIndex { $0.key == key }
        if keys.count == 1 {
            guard existing == nil else { return nil }
            children.append(Child(key: key, node: .field(field)))
            return children
        }
        if let existing {
            guard case .container(let grandchildren) = children[existing].node,
                let updated = insert(keys.dropFirst(), field: field, into: grandchildren)
            else { return nil }
            children[existing] = Child(key: key, node: .container(updated))
        } else {
            guard let created = insert(keys.dropFirst(), field: field, into: []) else { return nil }
            children.append(Child(key: key, node: .container(created)))
        }
        return children
    }
}
