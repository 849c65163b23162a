/// A JSON-shaped value flowing through the pipeline.
///
/// Integers that appear without a fraction or exponent stay integers (`int`), so ids and
/// counts round-trip exactly; everything else numeric is a `double`.
public enum Value: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// An exact decimal number kept as its canonical text (`51.77`, `-1299`, `0.5`): money
    /// amounts never become binary floats. See `ExactDecimal.canonical`.
    case decimal(String)
    case string(String)
    case array([Value])
    case object(JSONObject)

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The numeric value of an `int` or a `double`.
    public var number: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .decimal(let text): return Double(text)
        default: return nil
        }
    }

    /// The value as a key for joins, dedupe and uniqueness: an integral double (`136256.0`)
    /// matches the integer it equals; everything else is itself.
    public var joinKey: Value {
        if case .double(let double) = self, double.rounded() == double, abs(double) < 9.007e15 {
            return .int(Int64(double))
        }
        return self
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A short name of the JSON type, for messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double, .decimal: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Walks a field path (object keys and array indices) into this value.
    public func value(at path: FieldPath) -> Value? {
        var current = self
        for component in path.components {
            switch (current, component) {
            case (.object(let object), .key(let key)):
                guard let next = object[key] else { return nil }
                current = next
            case (.object(let object), .index(let index)):
                guard let next = object[String(index)] else { return nil }
                current = next
            case (.array(let array), .index(let index)):
                guard index >= 0, index < array.count else { return nil }
                current = array[index]
            case (.array(let array), .key(let key)):
                guard let index = Int(key), index >= 0, index < array.count else { return nil }
                current = array[index]
            default:
                return nil
            }
        }
        return current
    }
}

/// A JSON object that keeps its keys in the order they were written.
public struct JSONObject: Hashable, Sendable {
    public private(set) var keys: [String] = []
    public private(set) var values: [Value] = []

    public init() {}

    public init(_ pairs: [(String, Value)]) {
        for (key, value) in pairs { self[key] = value }
    }

    public var count: Int { keys.count }

    public subscript(key: String) -> Value? {
        get {
            guard let index = keys.firstIndex(of: key) else { return nil }
            return values[index]
        }
        set {
            if let index = keys.firstIndex(of: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Appends without checking for an existing key; the JSON reader uses it and
    /// reports duplicate keys itself.
    mutating func appendUnchecked(_ key: String, _ value: Value) {
        keys.append(key)
        values.append(value)
    }

    public var pairs: Zip2Sequence<[String], [Value]> { zip(keys, values) }
}

extension Value {
    /// Whether `actual` is what this value describes (a pipeline test's expectation, an
    /// output's `where` value): integers exactly, other numbers by value (4 matches 4.0),
    /// arrays element by element, objects by the keys this one gives, in any order.
    public func describes(_ actual: Value) -> Bool {
        switch (self, actual) {
        case (.int(let a), .int(let b)):
            return a == b
        case (.decimal(let a), .decimal(let b)):
            // Canonical digits: exact, where doubles would round 12345678901234567.01.
            return (ExactDecimal.canonical(a) ?? a) == (ExactDecimal.canonical(b) ?? b)
        case (.decimal(let a), .int(let b)), (.int(let b), .decimal(let a)):
            return (ExactDecimal.canonical(a) ?? a) == String(b)
        case (.int, .double), (.double, .int), (.double, .double), (.decimal, _), (_, .decimal):
            if case .string = self { return false }
            if case .string = actual { return false }
            return number == actual.number
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.describes($1) }
        case (.object(let a), .object(let b)):
            return a.pairs.allSatisfy { key, value in b[key].map { value.describes($0) } ?? false }
        default:
            return self == actual
        }
    }
}
