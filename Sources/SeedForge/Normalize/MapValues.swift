/// `normalize: map-values`: replaces the many spellings of a value with its canonical
/// form, from a declared table (`Museum: [museum, museums, 🏛️]`). Values compare trimmed
/// and folded by the collation (case, diacritics, white space) and without emoji
/// presentation selectors, so `MUSEUM `, `Muséum` and `🏛` (with or without U+FE0F) need no
/// entry of their own; each canonical name maps to itself. Numbers and booleans map by
/// their text (`1: [1, one]`). For an array (a places API's `types`), the first element
/// that maps is taken. A value that maps to nothing is an `unmapped` finding (rejecting
/// the record, or with `unmapped: warn` kept as it is, or with `unmapped: null` nulled).
/// With `into: F` the canonical value goes into a new text field F and the mapped field
/// stays as read (required for an array field: a list of types becomes one category).
/// With `default: V` a value that maps to nothing, null or an empty list gets V without a
/// finding: for sources whose vocabulary is larger than the table (a places API's types).
public struct MapValues: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "map-values",
        summary: "Replace spellings of a value by its canonical form from a table; unmappable values are findings.",
        keys: [
            CommonKeys.collection,
            KeySpec("field", required: true, "the field to map"),
            KeySpec("map", required: true, "canonical value: [spellings...] (compared trimmed and folded)"),
            KeySpec(
                "unmapped",
                #"a value that maps to nothing: `reject` (default: the record is rejected with an `unmapped` finding), `warn` (kept as it is, with a warning) or `null`, quoted or not (set to null, with a warning)"#
            ),
            KeySpec(
                "into",
                "write the canonical value into this new text field, keeping the mapped field as it is (needed for array fields)"
            ),
            KeySpec(
                "default",
                "the canonical value for values that map to nothing (and null or empty lists), without a finding; replaces 'unmapped'"
            ),
            KeySpec(
                "priority",
                "for a list: list (default: the first element that maps) or map (of the values its elements map to, the one written first in 'map')"
            ),
        ],
        details: #"""
            Replaces the many spellings of a value (`food `, `MUSEUMS`, an emoji) by its canonical
            form. Values compare trimmed and folded by the [collation](#collation), so case, accents
            and spacing need no entries, and without emoji presentation selectors (U+FE0F, U+FE0E), so
            `🏛` and `🏛️` are one spelling; each canonical name maps to itself; numbers and booleans in
            an `any` field map by their text (`Food: [1]`). For an array (a places API's `types`) the
            first element that maps is taken, or with `priority: map` the canonical value written
            first in `map` among those its elements map to (`types: [cafe, church]` with `Place of
            Worship` listed before `Restaurant` gives `Place of Worship`); `priority` on a field that
            is not a list is a definition error. A value that maps to nothing is an `unmapped`
            finding. A spelling listed for two values is a definition error, and so is a `field`
            declared as a number or boolean (the result is text). `into` is required for an `array`
            field: a list of types becomes one category. `default` (one of the canonical values) is
            given to values that map to nothing, to null and to empty lists: for sources whose
            vocabulary is larger than the table, such as a places API's `types` (`default: Other`).
            """#,
        example: """
            - normalize: map-values
              collection: attractions
              field: category
              map:
                Food: [food, foods, restaurant, 🍕]
                Museum: [museum, museums, 🏛️]
            """)

    public enum Unmapped: String, CaseIterable, Sendable {
        case reject, warn, null
    }

    /// Which canonical value a list gets when several of its elements map.
    public enum Priority: String, CaseIterable, Sendable {
        case list, map
    }

    public let collection: CollectionID
    let field: FieldID
    /// Where the canonical value is written: `field` itself, or the new field of `into`.
    let target: FieldID
    let name: String
    let table: [String: String]
    let canonical: [String]
    let unmapped: Unmapped
    let fallback: String?
    let priority: Priority
    /// Canonical values by their place in `map` (for `priority: map`).
    let rank: [String: Int]

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        field = try plan.field(config, key: "field", in: collection)
        name = plan.schema(collection)[field].name
        let type = plan.schema(collection)[field].type
        guard [.string, .any, .array].contains(type) else {
            throw config["field"]!.error(
                "map-values writes text, but '\(name)' is declared \(type.rawValue); declare it string (or any, when the source mixes codes and names)"
            )
        }
        if type == .array, config["into"] == nil {
            throw config["field"]!.error(
                "'\(name)' is an array: give 'into' a new field for the mapped value (a list of types becomes one category)"
            )
        }
        let mapNode = try config.require("map")
        var table: [String: String] = [:]
        var canonical: [String] = []
        for (keyNode, valueNode) in try mapNode.mapping("'map'").mapping {
            let target = try ConfigNode(node: keyNode, file: config.file).string("a canonical value")
            canonical.append(target)
            let spellings = try ConfigNode(node: valueNode, file: config.file).strings("the spellings of '\(target)'")
            for spelling in [target] + spellings {
                let key = Self.key(spelling)
                if let other = table[key], other != target {
                    throw ConfigNode(node: valueNode, file: config.file).error(
                        "'\(spelling)' is listed for both '\(other)' and '\(target)'")
                }
                table[key] = target
            }
        }
        if canonical.isEmpty { throw mapNode.error("'map' lists no value") }
        self.table = table
        self.canonical = canonical
        fallback = try config.string("default")
        if let fallback, !canonical.contains(fallback) {
            throw config["default"]!.error(
                "'default: \(fallback)' is not one of the canonical values \(canonical.joined(separator: ", "))")
        }
        if fallback != nil, let node = config["unmapped"] {
            throw node.error("'unmapped' and 'default' exclude each other: with a default nothing is unmapped")
        }
        if let intoNode = config["into"] {
            target = try plan.addField(intoNode.string("'into'"), type: .string, to: collection, at: intoNode)
        } else {
            target = field
        }
        unmapped = try config.choice("unmapped", Unmapped.self, choices: Unmapped.allCases) ?? .reject
        priority = try config.choice("priority", Priority.self, choices: Priority.allCases) ?? .list
        if let node = config["priority"], type != .array, type != .any {
            throw node.error("'priority' chooses among the elements of a list; '\(name)' is \(type.rawValue)")
        }
        rank = Dictionary(canonical.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The comparison key: trimmed, folded, without text/emoji presentation selectors.
    static let selectors: Set<Unicode.Scalar> = ["\u{FE0E}", "\u{FE0F}"]

    static func key(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: selectors.contains) else { return SearchKey.key(text) }
        return SearchKey.key(String(String.UnicodeScalarView(text.unicodeScalars.filter { !selectors.contains($0) })))
    }

    /// The text a scalar value is looked up by.
    static func text(_ value: Value) -> String? {
        switch value {
        case .string(let text), .decimal(let text): return text
        case .int(let int): return String(int)
        case .double(let double): return RuleFields.describe(limit: double)
        case .bool(let bool): return bool ? "true" : "false"
        default: return nil
        }
    }

    func mapped(_ value: Value) -> String? {
        if case .array(let values) = value {
            let found = values.lazy.compactMap { Self.text($0).flatMap { self.table[Self.key($0)] } }
            switch priority {
            case .list: return found.first
            case .map: return found.min { rank[$0]! < rank[$1]! }
            }
        }
        return Self.text(value).flatMap { table[Self.key($0)] }
    }

    public func change(_ state: RunState) throws -> RecordChange {
        let spec = state.schemas[loaded: collection][field]
        return RecordChange(step: "normalize: map-values", parallel: true) { record in
            let value = record[field]
            if let mapped = value.isNull ? nil : mapped(value) {
                record[target] = .string(mapped)
                return []
            }
            if let fallback {
                record[target] = .string(fallback)
                return []
            }
            if value.isNull { return [] }
            let finding = Finding(
                rule: .unmapped, severity: unmapped == .reject ? .error : .warning,
                message:
                    "\(name) \(JSONWriter.compact(value)) is none of \(canonical.joined(separator: ", ")) or their listed spellings",
                location: record.origin.location(ofField: spec), field: name, value: value)
            if unmapped == .null { record[target] = .null }
            return [finding]
        }
    }
}
