import Yams

/// A YAML node of a pipeline definition with its position, and typed accessors whose
/// errors name the file, line and column.
public struct ConfigNode {
    public let node: Node
    public let file: String

    public init(node: Node, file: String) {
        self.node = node
        self.file = file
    }

    public var line: Int { node.mark?.line ?? 1 }
    public var column: Int { node.mark?.column ?? 1 }

    public func error(_ message: String) -> DefinitionError {
        DefinitionError(file: file, line: line, column: column, message: message)
    }

    public var typeDescription: String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            if scalar.style == .plain, node.null != nil { return "null" }
            return "'\(scalar.string)'"
        }
    }

    /// The node as a mapping, or an error saying what was expected.
    public func mapping(_ what: String) throws -> ConfigMap {
        guard case .mapping(let mapping) = node else {
            throw error("\(what) must be a mapping (key: value), found \(typeDescription)")
        }
        return ConfigMap(mapping: mapping, node: self, what: what)
    }

    public func list(_ what: String) throws -> [ConfigNode] {
        guard case .sequence(let sequence) = node else {
            throw error("\(what) must be a list, found \(typeDescription)")
        }
        return sequence.map { ConfigNode(node: $0, file: file) }
    }

    public func string(_ what: String) throws -> String {
        guard case .scalar(let scalar) = node, !(scalar.style == .plain && node.null != nil) else {
            throw error("\(what) must be a text value, found \(typeDescription)")
        }
        return scalar.string
    }

    public func number(_ what: String) throws -> Double {
        guard case .scalar = node, let value = node.float, value.isFinite else {
            throw error("\(what) must be a number, found \(typeDescription)")
        }
        return value
    }

    public func int(_ what: String) throws -> Int {
        guard case .scalar = node, let value = node.int else {
            throw error("\(what) must be a whole number, found \(typeDescription)")
        }
        return value
    }

    public func bool(_ what: String) throws -> Bool {
        guard case .scalar = node, let value = node.bool else {
            throw error("\(what) must be true or false, found \(typeDescription)")
        }
        return value
    }

    /// A single text value or a list of them.
    public func strings(_ what: String) throws -> [String] {
        if case .sequence = node {
            return try list(what).map { try $0.string("each entry of \(what)") }
        }
        return [try string(what)]
    }

    /// The node as a plain JSON-like value (for `enum` values, `expect`, constants and
    /// inline test records). Only `true` and `false` are booleans, as in JSON and YAML 1.2:
    /// `NO` (Norway) and `yes` stay text.
    public func value() throws -> Value {
        switch node {
        case .scalar(let scalar):
            if scalar.style == .plain {
                if node.null != nil { return .null }
                if ["true", "True", "TRUE", "false", "False", "FALSE"].contains(scalar.string), let bool = node.bool {
                    return .bool(bool)
                }
                if let int = node.int { return .int(Int64(int)) }
                if let double = node.float {
                    guard double.isFinite else {
                        throw error("'\(scalar.string)' is not a finite number; JSON has no infinity or NaN")
                    }
                    return .double(double)
                }
            }
            return .string(scalar.string)
        case .sequence:
            return .array(try list("value").map { try $0.value() })
        case .mapping(let mapping):
            var object = JSONObject()
            for (key, value) in mapping {
                object[try ConfigNode(node: key, file: file).string("key")] = try ConfigNode(node: value, file: file)
                    .value()
            }
            return .object(object)
        case .alias:
            throw error("YAML aliases are not supported here")
        }
    }

    /// The node read as a value of the field's type (`where` values, `set` constants,
    /// `lookup` defaults); `key` names the setting in messages.
    public func value(as field: FieldSpec, setting key: String) throws -> Value {
        guard case .scalar(let scalar) = node else {
            if field.type == .array || field.type == .object || field.type == .any { return try value() }
            throw error(
                "'\(key)' on '\(field.name)' (\(field.type.rawValue)) needs a single value\(key == "where" ? " or a list of values" : "")"
            )
        }
        if scalar.style == .plain && node.null != nil { return .null }
        let text = scalar.string
        func mismatch() -> DefinitionError {
            error("'\(key)' on '\(field.name)': '\(text)' is not a value of its type, \(field.type.rawValue)")
        }
        switch field.type {
        case .string:
            return .string(text)
        case .integer:
            guard let int = Int64(text) else { throw mismatch() }
            return .int(int)
        case .decimal:
            // Exactly its digits, as ingest stores decimals (2.50 is 2.5, never a double).
            guard let canonical = ExactDecimal.canonical(text) else { throw mismatch() }
            return .decimal(canonical)
        case .number:
            if let int = Int64(text) { return .int(int) }
            guard let double = Double(text), double.isFinite else { throw mismatch() }
            return .double(double)
        case .boolean:
            guard let bool = node.bool else { throw mismatch() }
            return .bool(bool)
        case .array, .object, .any:
            return try value()
        }
    }
}

/// A YAML mapping of a pipeline definition. Every key it may hold is declared up front,
/// so an unknown key is an error with the nearest valid key suggested.
public struct ConfigMap {
    public let mapping: Node.Mapping
    public let node: ConfigNode
    /// What this mapping is, for messages ("source 'shops'", "step 3 (validate: range)").
    public let what: String

    public var file: String { node.file }

    public var keys: [String] { mapping.keys.compactMap { $0.string } }

    /// The value node of `key` and the node of the key itself (for positions).
    public subscript(key: String) -> ConfigNode? {
        for (keyNode, valueNode) in mapping where keyNode.string == key {
            return ConfigNode(node: valueNode, file: file)
        }
        return nil
    }

    public func keyNode(_ key: String) -> ConfigNode? {
        for (keyNode, _) in mapping where keyNode.string == key {
            return ConfigNode(node: keyNode, file: file)
        }
        return nil
    }

    public func error(_ message: String) -> DefinitionError { node.error(message) }

    /// Errors for every key not in `allowed`, each with a suggestion.
    public func unknownKeys(allowed: [String]) -> [DefinitionError] {
        var errors: [DefinitionError] = []
        var seen: Set<String> = []
        for (keyNode, _) in mapping {
            let config = ConfigNode(node: keyNode, file: file)
            guard let key = keyNode.string else {
                errors.append(config.error("keys in \(what) must be text"))
                continue
            }
            if !seen.insert(key).inserted {
                errors.append(config.error("key '\(key)' appears twice in \(what)"))
            }
            if !allowed.contains(key) {
                let hint =
                    Suggestion.nearest(to: key, in: allowed).map { "did you mean '\($0)'?" }
                    ?? "valid keys: \(allowed.sorted().joined(separator: ", "))"
                errors.append(config.error("unknown key '\(key)' in \(what); \(hint)"))
            }
        }
        return errors
    }

    public func require(_ key: String) throws -> ConfigNode {
        guard let value = self[key] else { throw error("\(what) is missing required key '\(key)'") }
        return value
    }

    public func string(_ key: String) throws -> String? {
        try self[key].map { try $0.string("'\(key)' in \(what)") }
    }

    public func requiredString(_ key: String) throws -> String {
        try require(key).string("'\(key)' in \(what)")
    }

    public func number(_ key: String) throws -> Double? {
        try self[key].map { try $0.number("'\(key)' in \(what)") }
    }

    public func int(_ key: String) throws -> Int? {
        try self[key].map { try $0.int("'\(key)' in \(what)") }
    }

    public func bool(_ key: String) throws -> Bool? {
        try self[key].map { try $0.bool("'\(key)' in \(what)") }
    }

    public func strings(_ key: String) throws -> [String]? {
        try self[key].map { try $0.strings("'\(key)' in \(what)") }
    }

    /// A text value that must be one of `choices`. A choice named `null` may be written
    /// without quotes (where YAML reads it as null).
    public func choice<T: RawRepresentable>(_ key: String, _ type: T.Type, choices: [T]) throws -> T?
    where T.RawValue == String {
        guard let node = self[key] else { return nil }
        if case .scalar(let scalar) = node.node, scalar.style == .plain, node.node.null != nil,
            let null = T(rawValue: "null"), choices.contains(where: { $0.rawValue == "null" })
        {
            return null
        }
        let text = try node.string("'\(key)' in \(what)")
        guard let value = T(rawValue: text) else {
            let names = choices.map(\.rawValue)
            throw node.error(
                "'\(key)' in \(what) must be one of \(names.joined(separator: ", ")), found '\(text)'\(Suggestion.phrase(for: text, in: names))"
            )
        }
        return value
    }
}
