/// What changed in one collection between two datasets, counted by the collection's key.
public struct CollectionChanges: Sendable {
    public let collection: String
    /// The fields records were matched by (empty when the collection has no key).
    public let key: [String]
    /// Records in the previous and in the new dataset.
    public var previous = 0
    public var current = 0
    public var added = 0
    public var removed = 0
    public var changed = 0
    /// Why the collection was not compared (a first run, no key, a key that is not
    /// unique); nil when it was. Nothing is guessed: an uncompared collection counts nothing.
    public var notCompared: String?

    public init(collection: String, key: [String], notCompared: String? = nil) {
        self.collection = collection
        self.key = key
        self.notCompared = notCompared
    }

    public var compared: Bool { notCompared == nil }
    public var unchanged: Int { current - added - changed }
    public var differs: Bool { notCompared != nil || added + removed + changed > 0 }

    /// `+12 −3 ~40`: added, removed, changed.
    public var counts: String { "+\(added) \u{2212}\(removed) ~\(changed)" }
}

/// One record that differs: added (the new record), removed (the previous record) or
/// changed (the fields that differ, with their previous and new value). Values are JSON
/// text exactly as the snapshots hold them.
public struct ChangeEntry: Sendable {
    public enum Kind: String, Sendable {
        case added, removed, changed
    }

    /// A field and its value as JSON text.
    public struct FieldValue: Sendable {
        public let field: String
        public let json: String
    }

    /// A field whose value changed.
    public struct FieldChange: Sendable {
        public let field: String
        public let old: String
        public let new: String
    }

    public let collection: String
    public let kind: Kind
    public let key: [FieldValue]
    /// The whole record, for an added or a removed one.
    public let record: [FieldValue]
    /// The fields that changed, in the new dataset's field order.
    public let fields: [FieldChange]

    /// `id=707860` or `city="Paris" country="FR"`.
    public var keyText: String { key.map { "\($0.field)=\($0.json)" }.joined(separator: " ") }
}

/// The comparison of two datasets: per collection counts, and every record that differs.
public struct Changes: Sendable {
    public var collections: [CollectionChanges]
    /// Records that differ: per collection, added and changed ones in the new dataset's
    /// order, then removed ones in the previous dataset's order.
    public var entries: [ChangeEntry]

    public func collection(_ name: String) -> CollectionChanges? { collections.first { $0.collection == name } }

    public var differs: Bool { collections.contains(where: \.differs) }

    /// `changes.ndjson`: one JSON object per entry.
    public func ndjson() -> [UInt8] {
        var writer = JSONWriter()
        for entry in entries {
            writer.append("{\"collection\":")
            writer.writeString(entry.collection)
            writer.append(",\"change\":\"\(entry.kind.rawValue)\",\"key\":")
            Self.writeObject(entry.key, into: &writer)
            switch entry.kind {
            case .added, .removed:
                writer.append(",\"record\":")
                Self.writeObject(entry.record, into: &writer)
            case .changed:
                writer.append(",\"fields\":[")
                for (index, change) in entry.fields.enumerated() {
                    if index > 0 { writer.append(byte: UInt8(ascii: ",")) }
                    writer.append("{\"field\":")
                    writer.writeString(change.field)
                    writer.append(",\"old\":\(change.old),\"new\":\(change.new)}")
                }
                writer.append(byte: UInt8(ascii: "]"))
            }
            writer.append("}\n")
        }
        return writer.bytes
    }

    static func writeObject(_ values: [ChangeEntry.FieldValue], into writer: inout JSONWriter) {
        writer.append(byte: UInt8(ascii: "{"))
        for (index, value) in values.enumerated() {
            if index > 0 { writer.append(byte: UInt8(ascii: ",")) }
            writer.writeString(value.field)
            writer.append(byte: UInt8(ascii: ":"))
            writer.append(value.json)
        }
        writer.append(byte: UInt8(ascii: "}"))
    }

    /// The manifest's `changes`: per collection, the counts or why it was not compared.
    func manifestValue() -> Value {
        var object = JSONObject()
        for entry in collections {
            var counts = JSONObject()
            counts.appendUnchecked("compared", .bool(entry.compared))
            counts.appendUnchecked("key", entry.key.isEmpty ? .null : .array(entry.key.map(Value.string)))
            if let reason = entry.notCompared {
                counts.appendUnchecked("reason", .string(reason))
            } else {
                for (name, count) in [
                    ("previous", entry.previous), ("current", entry.current), ("added", entry.added),
                    ("removed", entry.removed), ("changed", entry.changed), ("unchanged", entry.unchanged),
                ] {
                    counts.appendUnchecked(name, .int(Int64(count)))
                }
            }
            object.appendUnchecked(entry.collection, .object(counts))
        }
        return .object(object)
    }

    /// The run's summary of its changes: `cities: +12 −3 ~40 since the last run`, one entry
    /// per collection when there are several (`honey-shops: shops +0 −1 ~2, reviews +3 −0
    /// ~0 since the last run`), and why a collection was not compared.
    public func summaryLine(dataset: String) -> String {
        let compared = collections.filter(\.compared)
        let skipped = collections.filter { !$0.compared }
        var line = "\(dataset): "
        if compared.isEmpty {
            let reasons = Array(Set(skipped.compactMap(\.notCompared)))
            if reasons.count == 1 { return line + "changes not compared: \(reasons[0])" }
        }
        if compared.count == 1 && skipped.isEmpty && compared[0].collection == dataset {
            line += compared[0].counts
        } else {
            line += compared.map { "\($0.collection) \($0.counts)" }.joined(separator: ", ")
        }
        if !compared.isEmpty { line += " since the last run" }
        if !skipped.isEmpty {
            line +=
                (compared.isEmpty ? "" : "; ")
                + skipped.map { "\($0.collection) not compared: \($0.notCompared ?? "")" }.joined(separator: "; ")
        }
        return line
    }
}
