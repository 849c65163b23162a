/// Options of `search-key` that fold more than the collation does, for names typed
/// without their punctuation: `apostrophes: drop` makes `Farmers’ Market` and `O'Hare`
/// the keys `farmers market` and `ohare`; `punctuation: space` turns other punctuation
/// into a space (`Saint-Malo` → `saint malo`, `St. Ives` → `st ives`). A prefix index
/// records them in its meta.json, so `seedforge query` folds a typed prefix the same way.
public struct KeyFolding: Sendable, Equatable {
    public enum Apostrophes: String, CaseIterable, Sendable { case keep, drop }
    public enum Punctuation: String, CaseIterable, Sendable { case keep, space }

    public var apostrophes: Apostrophes = .keep
    public var punctuation: Punctuation = .keep

    public static let none = KeyFolding()

    public init(apostrophes: Apostrophes = .keep, punctuation: Punctuation = .keep) {
        self.apostrophes = apostrophes
        self.punctuation = punctuation
    }

    static let apostropheScalars: Set<Unicode.Scalar> = ["'", "\u{2019}", "\u{2018}", "\u{02BC}", "`", "\u{00B4}"]

    /// The text with the folding applied (before trimming and the collation).
    public func apply(_ text: String) -> String {
        guard self != .none else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if apostrophes == .drop, Self.apostropheScalars.contains(scalar) { continue }
            if punctuation == .space, scalar.properties.generalCategory.isPunctuation {
                scalars.append(" ")
                continue
            }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// `{"apostrophes": "drop", "punctuation": "space"}` for meta.json, nil when it folds nothing more.
    var meta: Value? {
        guard self != .none else { return nil }
        return .object(
            JSONObject([("apostrophes", .string(apostrophes.rawValue)), ("punctuation", .string(punctuation.rawValue))])
        )
    }

    init?(meta: Value?) {
        guard let meta else { return nil }
        guard case .object(let object) = meta,
            case .string(let a)? = object["apostrophes"], let apostrophes = Apostrophes(rawValue: a),
            case .string(let p)? = object["punctuation"], let punctuation = Punctuation(rawValue: p)
        else { return nil }
        self.init(apostrophes: apostrophes, punctuation: punctuation)
    }
}

extension Unicode.GeneralCategory {
    var isPunctuation: Bool {
        switch self {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
            .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return true
        default: return false
        }
    }
}
