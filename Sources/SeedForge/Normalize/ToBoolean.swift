/// `normalize: to-boolean`: a new boolean field from text spellings (`yes`, `Y`, `1`,
/// `true`; `no`, `0`, `false` ...), compared trimmed and case-insensitively. Booleans pass
/// as they are, numbers by their text (`1`, `0`), null stays null. A value that is neither
/// spelling rejects the record (rule `boolean`), or with `unmapped: null` becomes null with
/// a warning.
public struct ToBoolean: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "to-boolean",
        summary: "A new boolean field from text spellings such as yes/no, Y/N, 1/0, true/false.",
        keys: [
            CommonKeys.collection,
            KeySpec("field", required: true, "the field holding the spellings"),
            KeySpec("into", required: true, "the name of the new boolean field"),
            KeySpec(
                "true", "the spellings of true (default [true, yes, y, 1, on]); compared trimmed, case-insensitively"),
            KeySpec("false", "the spellings of false (default [false, no, n, 0, off])"),
            KeySpec("unmapped", "a value that is neither: reject (default, rule boolean) or null (with a warning)"),
        ],
        details: #"""
            Spellings compare trimmed and case-insensitively (`Yes`, ` Y `); booleans pass as they
            are, numbers by their text (`1`, `0`), null stays null. A spelling listed for both is a
            definition error.
            """#,
        example: """
            - normalize: to-boolean
              collection: shops
              field: open
              into: isOpen
              true: [yes, open, "1"]
              false: [no, closed, "0"]
            """)

    enum Unmapped: String, CaseIterable, Sendable { case reject, null }

    public let collection: CollectionID
    let field: FieldID
    let into: FieldID
    let spellings: [String: Bool]
    let unmapped: Unmapped

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        field = try plan.field(config, key: "field", in: collection)
        var spellings: [String: Bool] = [:]
        for (key, value, defaults) in [
            ("true", true, ["true", "yes", "y", "1", "on"]), ("false", false, ["false", "no", "n", "0", "off"]),
        ] {
            let words: [String]
            if let node = config[key] {
                words = try node.list("'\(key)'").map { try $0.string("a spelling of \(key)") }
                guard !words.isEmpty else { throw node.error("'\(key)' lists no spelling") }
            } else {
                words = defaults
            }
            for word in words {
                let folded = Self.folded(word)
                if let other = spellings[folded], other != value {
                    throw (config[key] ?? config.node).error("'\(word)' is a spelling of both true and false")
                }
                spellings[folded] = value
            }
        }
        self.spellings = spellings
        unmapped = try config.choice("unmapped", Unmapped.self, choices: Unmapped.allCases) ?? .reject
        into = try plan.addField(config, type: .boolean, to: collection)
    }

    static func folded(_ text: String) -> String { Trim.trimmed(text).lowercased() }

    public func change(_ state: RunState) throws -> RecordChange {
        let spec = state.schemas[loaded: collection][field]
        return RecordChange(step: "normalize: to-boolean", parallel: true) { record in
            let value = record[field]
            let text: String
            switch value {
            case .null:
                record[into] = .null
                return []
            case .bool:
                record[into] = value
                return []
            case .string(let string): text = string
            case .int, .double, .decimal: text = JSONWriter.compact(value)
            default: text = ""
            }
            if let bool = spellings[Self.folded(text)] {
                record[into] = .bool(bool)
                return []
            }
            record[into] = .null
            return [
                Finding(
                    rule: .boolean, severity: unmapped == .reject ? .error : .warning,
                    message:
                        "\(spec.name) \(RuleFields.describe(value)) is not a spelling of true or false (\(spellings.keys.sorted().joined(separator: ", ")))",
                    location: record.origin.location(ofField: spec), field: spec.name, value: value)
            ]
        }
    }
}
