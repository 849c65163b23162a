/// A path into a JSON value, written as a JSON Pointer (RFC 6901): `/coordinates/0`,
/// `/geometry/location/lat`. A bare name such as `rating` is accepted as `/rating`.
public struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    public enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(components: [Component]) { self.components = components }

    /// Parses a JSON Pointer or a bare field name. Returns nil for an empty string.
    public init?(parsing text: String) {
        guard !text.isEmpty else { return nil }
        if !text.hasPrefix("/") {
            components = [.key(text)]
            return
        }
        var result: [Component] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let index = Int(token), index >= 0, token == String(index) {
                result.append(.index(index))
            } else {
                result.append(.key(token))
            }
        }
        components = result
    }

    /// Why a pointer written in a pipeline cannot be meant as written: a `*` or `**` step is
    /// a key named `*` to JSON Pointer (RFC 6901), which has no wildcards, so a source with
    /// `records: /*/ratings` would pass and then find nothing in any file. Nil when fine.
    public var wildcardProblem: String? {
        guard let step = components.first(where: { $0 == .key("*") || $0 == .key("**") }), case .key(let key) = step
        else { return nil }
        return
            "'\(key)' in \(description) is not a wildcard: a JSON Pointer (RFC 6901) names one value, step by step; write the key or the index (e.g. /results or /0/ratings)"
    }

    /// The path as a JSON Pointer.
    public var description: String { FieldPath.pointer(components) }

    public static func pointer(_ components: [Component]) -> String {
        var out = ""
        for component in components {
            out += "/"
            switch component {
            case .key(let key):
                out += key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            case .index(let index):
                out += String(index)
            }
        }
        return out
    }

    public func appending(_ other: FieldPath) -> FieldPath {
        FieldPath(components: components + other.components)
    }
}
