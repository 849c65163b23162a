import Foundation

/// The source paths of a mapping's fields as a tree, so a record's declared fields can be
/// read straight from the bytes (`JSONReader.readFields`) while everything else is
/// skipped without building values. Only built when every path is plain: no path is a
/// prefix of another, and array positions are written canonically.
public struct FieldTree: Sendable {
    /// Not `indirect` (the array already breaks the recursion): an indirect case is a heap
    /// box, and reading a field's node retained and released it once a value read.
    public enum Node: Sendable {
        case field(Int)
        case container([Child])
    }

    public struct Child: Sendable {
        /// The key's UTF-8 bytes (for arrays: the position in decimal).
        public let key: [UInt8]
        public let node: Node
        /// The key's first 8 bytes as an integer (`head(_:count:)`) and its length: a key
        /// read from a file is compared by them, and only a longer key byte by byte after.
        let head: UInt64
        let count: Int
        /// The key as an array position (keys that look like one are canonical: see `init`).
        let position: Int?

        init(key: [UInt8], node: Node) {
            self.key = key
            self.node = node
            count = key.count
            position = Int(String(decoding: key, as: UTF8.self))
            head = key.prefix(8).enumerated().reduce(0) { $0 | UInt64($1.element) << UInt64($1.offset * 8) }
        }

        /// Up to the first 8 bytes at `bytes` as a little-endian integer (zero-padded).
        @inline(__always)
        static func head(_ bytes: UnsafePointer<UInt8>, count: Int) -> UInt64 {
            var value: UInt64 = 0
            var index = 0
            while index < min(count, 8) {
                value |= UInt64(bytes[index]) &<< UInt64(index &* 8)
                index += 1
            }
            return value
        }

        /// Whether `bytes` (a key as written, without escapes) is this key.
        @inline(__always)
        func matches(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
            guard count == self.count, head == Child.head(bytes, count: count) else { return false }
            return count <= 8 || key.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes, count) == 0 }
        }
    }

    /// The position in `children` of the child whose key is `bytes`, nil when none is.
    @inline(__always)
    static func index(in children: UnsafeBufferPointer<Child>, of bytes: UnsafePointer<UInt8>, count: Int) -> Int? {
        var index = 0
        while index < children.count {
            if children[index].matches(bytes, count: count) { return index }
            index += 1
        }
        return nil
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

    /// The same tree in storage of its own. Each thread that parses reads its own copy:
    /// reading an object field's members retains and releases their array, and two threads
    /// doing that to one array take turns at its reference count's cache line.
    init(copying tree: FieldTree) {
        fieldCount = tree.fieldCount
        root = Self.copy(tree.root)
    }

    private static func copy(_ children: [Child]) -> [Child] {
        children.map { child in
            var node = child.node
            if case .container(let grandchildren) = node { node = .container(copy(grandchildren)) }
            // `map` makes new storage for the key (`Array(key)` would share it).
            return Child(key: child.key.map { $0 }, node: node)
        }
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
