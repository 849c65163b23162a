import Foundation

/// `aggregate: sort`: orders a collection by one or more keys. Text sorts by the documented
/// collation (see `Collation`) unless `collation: exact`; numbers numerically; timestamps
/// (`as: timestamp`) by instant; nulls last in either direction. Ties keep input order,
/// so the result is the same on every run.
public struct Sort: Step {
    public static let spec = KindSpec(
        stage: .aggregate, name: "sort",
        summary: "Order records by keys: text by the folded collation, numbers numerically, timestamps by instant; nulls last; stable.",
        keys: [
            CommonKeys.collection,
            KeySpec("by", required: true, "a list of keys: a field name, or {field: F, order: asc|desc, collation: folded|exact, as: value|timestamp}"),
        ],
        example: """
            - aggregate: sort
              collection: reviews
              by:
                - shopID
                - {field: createdAt, order: desc, as: timestamp}
                - id
            """)

    struct Key: Sendable {
        let field: FieldID
        let descending: Bool
        let collation: TextOrder
        let timestamp: Bool
    }

    public let collection: String
    let keys: [Key]

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        let byNode = try config.require("by")
        let entries = try Self.entries(byNode)
        var keys: [Key] = []
        for entry in entries {
            if case .mapping = entry.node {
                let map = try entry.mapping("a sort key")
                if let error = map.unknownKeys(allowed: ["field", "order", "collation", "as"]).first { throw error }
                let field = try plan.field(map, key: "field", in: collection)
                let order = try map.string("order") ?? "asc"
                guard order == "asc" || order == "desc" else { throw map["order"]!.error("'order' must be asc or desc, found '\(order)'") }
                let collation = try map.choice("collation", TextOrder.self, choices: TextOrder.allCases) ?? .folded
                let kind = try map.string("as") ?? "value"
                guard kind == "value" || kind == "timestamp" else { throw map["as"]!.error("'as' must be value or timestamp, found '\(kind)'") }
                keys.append(Key(field: field, descending: order == "desc", collation: collation, timestamp: kind == "timestamp"))
            } else {
                let field = try plan.field(entry.string("a sort key"), in: collection, at: entry)
                keys.append(Key(field: field, descending: false, collation: .folded, timestamp: false))
            }
        }
        self.keys = keys
        plan.sortedBy[collection] = (keys[0].field, keys[0].collation == .exact && !keys[0].timestamp, keys[0].descending)
    }

    static func entries(_ node: ConfigNode) throws -> [ConfigNode] {
        guard case .sequence = node.node else { return [node] }
        let list = try node.list("'by'")
        if list.isEmpty { throw node.error("'by' must name at least one sort key") }
        return list
    }

    public func run(_ state: RunState) throws {
        let records = state.records(collection)
        let sortKeys: [[SortKey]] = records.map { record in
            keys.map { key in
                let value = record[key.field]
                if key.timestamp, case .string(let text) = value, let instant = Timestamp.parse(text) {
                    return SortKey.number(instant)
                }
                return SortKey(value, collation: key.collation)
            }
        }
        let order = records.indices.sorted { a, b in
            for (position, key) in keys.enumerated() {
                let left = sortKeys[a][position]
                let right = sortKeys[b][position]
                var result = SortKey.compare(left, right)
                if result == .orderedSame { continue }
                if key.descending, !left.isNull, !right.isNull { result = result == .orderedAscending ? .orderedDescending : .orderedAscending }
                return result == .orderedAscending
            }
            return a < b
        }
        state.collections[collection] = order.map { records[$0] }
    }
}

/// A value prepared for comparison. Order across types: numbers, text, booleans,
/// other values (by their JSON text), null last.
public enum SortKey: Sendable {
    case number(Double)
    case text(key: String, exact: String)
    case bool(Bool)
    case other(String)
    case null

    public init(_ value: Value, collation: TextOrder) {
        switch value {
        case .null: self = .null
        case .int, .double: self = .number(value.number!)
        case .string(let text):
            let nfc = text.precomposedStringWithCanonicalMapping
            self = .text(key: collation == .folded ? Collation.key(text) : nfc, exact: nfc)
        case .bool(let bool): self = .bool(bool)
        default: self = .other(JSONWriter.compact(value))
        }
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    var rank: Int {
        switch self {
        case .number: return 0
        case .text: return 1
        case .bool: return 2
        case .other: return 3
        case .null: return 4
        }
    }

    public static func compare(_ a: SortKey, _ b: SortKey) -> ComparisonResult {
        switch (a, b) {
        case let (.number(x), .number(y)): return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        case let (.text(k1, e1), .text(k2, e2)):
            let order = Collation.compareBytes(k1, k2)
            return order != .orderedSame ? order : Collation.compareBytes(e1, e2)
        case let (.bool(x), .bool(y)): return x == y ? .orderedSame : (!x ? .orderedAscending : .orderedDescending)
        case let (.other(x), .other(y)): return Collation.compareBytes(x, y)
        default: return a.rank < b.rank ? .orderedAscending : (a.rank > b.rank ? .orderedDescending : .orderedSame)
        }
    }
}

/// How a sort compares text: by the folded collation key (then exact text), or exactly.
public enum TextOrder: String, CaseIterable, Sendable {
    case folded, exact
}
