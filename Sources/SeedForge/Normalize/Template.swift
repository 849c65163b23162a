/// `normalize: template`: a new text field from a template naming other fields,
/// `"{address}, {city}"` → `1 Bee St, Turin`. `{{` and `}}` write braces. Text between
/// two placeholders is written only between two values, so a null or empty field is
/// left out with its separator (`{address}, {city}` without a city is `1 Bee St`, never
/// `1 Bee St, `); text before the first and after the last placeholder is always written.
/// With `null-fields: null` any null field makes the result null. No value at all is null.
public struct Template: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "template",
        summary: "A new text field from a template of other fields: \"{address}, {city}\".",
        keys: [
            CommonKeys.collection,
            KeySpec("template", required: true, "the text, with {field} placeholders; {{ and }} write braces"),
            KeySpec("into", required: true, "the name of the new text field"),
            KeySpec(
                "null-fields",
                "skip (default: a null or empty field is left out with the text before it) or null (the result is null)"
            ),
        ],
        details: #"""
            `"{address}, {city}"` gives `1 Bee St, Turin`. Numbers are written as in JSON, booleans
            `true`/`false`. Text between two placeholders is written only between two values, so a
            null or empty field is left out with the separator before it (`{address}, {city}` without
            a city is `1 Bee St`, without an address `Turin`); text before the first placeholder and
            after the last is always written. With `null-fields: null` a null field makes the result
            null; a record with no value at all gets null. A field that does not exist, an unmatched
            brace or a template without a placeholder is a definition error.
            """#,
        example: """
            - normalize: template
              collection: shops
              template: "{address}, {city}"
              into: fullAddress
            """)

    /// A literal text followed by a field (or the end).
    enum Part: Sendable {
        case literal(String)
        case field(FieldID)
    }

    enum NullFields: String, CaseIterable, Sendable { case skip, null }

    public let collection: CollectionID
    let parts: [Part]
    let into: FieldID
    let nullFields: NullFields

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        let node = try config.require("template")
        let text = try node.string("'template'")
        let target = collection
        parts = try Self.parse(text) { name in
            guard !name.isEmpty else {
                throw node.error("'template' has an empty placeholder {}; name a field, or write {{ for a brace")
            }
            return try plan.field(name, in: target, at: node)
        } unbalanced: {
            throw node.error("'template' has an unmatched '\($0)'; write {{ or }} for a brace")
        }
        guard parts.contains(where: { if case .field = $0 { return true } else { return false } }) else {
            throw node.error("'template' names no field; write placeholders such as {city}")
        }
        nullFields = try config.choice("null-fields", NullFields.self, choices: NullFields.allCases) ?? .skip
        into = try plan.addField(config, type: .string, to: collection)
    }

    static func parse(
        _ text: String, field: (String) throws -> FieldID, unbalanced: (Character) throws -> Never
    ) throws -> [Part] {
        var parts: [Part] = []
        var literal = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == "{", next < text.endIndex, text[next] == "{" {
                literal.append("{")
                index = text.index(after: next)
            } else if character == "}", next < text.endIndex, text[next] == "}" {
                literal.append("}")
                index = text.index(after: next)
            } else if character == "{" {
                guard let close = text[next...].firstIndex(of: "}") else { try unbalanced("{") }
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                parts.append(.field(try field(String(text[next..<close]))))
                index = text.index(after: close)
            } else if character == "}" {
                try unbalanced("}")
            } else {
                literal.append(character)
                index = next
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return parts
    }

    /// A field's value as template text, or nil when null or empty.
    static func text(_ value: Value) -> String? {
        switch value {
        case .null: return nil
        case .string(let text): return text.isEmpty ? nil : text
        case .bool(let bool): return bool ? "true" : "false"
        default: return JSONWriter.compact(value)
        }
    }

    public func change(_ state: RunState) throws -> RecordChange {
        let fieldPositions = parts.indices.filter { if case .field = parts[$0] { return true } else { return false } }
        let (first, last) = (fieldPositions.first!, fieldPositions.last!)
        return RecordChange(step: "normalize: template", parallel: true) { record in
            var out = ""
            var separator = ""
            var wroteField = false
            for (position, part) in parts.enumerated() {
                switch part {
                case .literal(let text) where position < first || position > last:
                    out += text  // before the first placeholder or after the last: always
                case .literal(let text):
                    separator += text  // between two placeholders: only between two values
                case .field(let field):
                    guard let text = Self.text(record[field]) else {
                        if nullFields == .null {
                            record[into] = .null
                            return []
                        }
                        separator = ""
                        continue
                    }
                    out += (wroteField ? separator : "") + text
                    separator = ""
                    wroteField = true
                }
            }
            record[into] = wroteField ? .string(out) : .null
            return []
        }
    }
}
