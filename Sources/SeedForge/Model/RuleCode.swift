/// The code of the rule behind a finding, as rejects, warnings and reports show it
/// (`type`, `csv-syntax`, `unique`, ...). The codes the engine raises itself are the
/// static members below; a validate step's code is its kind's name
/// (`RuleCode(rawValue: spec.name)`), so a rule added to the registry brings its own code.
/// The raw value is what every output writes, unchanged.
public struct RuleCode: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static func < (lhs: RuleCode, rhs: RuleCode) -> Bool { lhs.rawValue < rhs.rawValue }
}

// Sources: a file or record that cannot be read as the source kind says.
extension RuleCode {
    /// A source that fails as a whole: empty, wrong shape, broken pages or gzip, over a limit.
    public static let source = RuleCode(rawValue: "source")
    public static let jsonSyntax = RuleCode(rawValue: "json-syntax")
    public static let duplicateKey = RuleCode(rawValue: "duplicate-key")
    public static let keyField = RuleCode(rawValue: "key-field")
    public static let notAnObject = RuleCode(rawValue: "not-an-object")
    /// A value of the wrong type for its declared field (sources and `unnest`).
    public static let type = RuleCode(rawValue: "type")
    public static let unknownField = RuleCode(rawValue: "unknown-field")
    public static let nextLink = RuleCode(rawValue: "next-link")
    public static let missingPage = RuleCode(rawValue: "missing-page")
    public static let csvSyntax = RuleCode(rawValue: "csv-syntax")
    public static let csvColumns = RuleCode(rawValue: "csv-columns")
    public static let encoding = RuleCode(rawValue: "encoding")
}

// HTML pages: what a page or an item of it lacks or holds wrongly.
extension RuleCode {
    public static let emptyPage = RuleCode(rawValue: "empty-page")
    public static let notHTML = RuleCode(rawValue: "not-html")
    public static let nulBytes = RuleCode(rawValue: "nul-bytes")
    public static let charsetMismatch = RuleCode(rawValue: "charset-mismatch")
    public static let charsetUnknown = RuleCode(rawValue: "charset-unknown")
    public static let invalidUTF8 = RuleCode(rawValue: "invalid-utf8")
    public static let htmlParse = RuleCode(rawValue: "html-parse")
    public static let htmlMarkup = RuleCode(rawValue: "html-markup")
    public static let noItems = RuleCode(rawValue: "no-items")
    public static let missingField = RuleCode(rawValue: "missing-field")
    public static let classMap = RuleCode(rawValue: "class-map")
}

// Normalize and enrich steps, and converters (`convert`, HTML fields).
extension RuleCode {
    public static let unmapped = RuleCode(rawValue: "unmapped")
    public static let boolean = RuleCode(rawValue: "boolean")
    public static let stableIDCollision = RuleCode(rawValue: "stable-id-collision")
    public static let url = RuleCode(rawValue: "url")
    public static let price = RuleCode(rawValue: "price")
    public static let number = RuleCode(rawValue: "number")
    public static let reference = RuleCode(rawValue: "reference")
    public static let lookup = RuleCode(rawValue: "lookup")
    public static let coordinates = RuleCode(rawValue: "coordinates")
}
