import Foundation

/// `validate: order`: fields that must not run backwards, such as a trip's start and end
/// dates. Each value must be at least the last usable value before it (`strict: true`:
/// after it), so with `[a, b, c]` and `b` null, `c` is still checked against `a`.
/// Numbers compare exactly (integers and decimals without binary rounding); text as RFC
/// 3339 timestamps, by instant across offsets and to the last fraction digit, or as dates
/// `YYYY-MM-DD`. Nulls are skipped (that is `required`'s job); a value that is none of
/// these, or a date against a timestamp, is a finding of its own.
public struct OrderRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "order",
        summary: "Fields must not run backwards: start before end, for numbers, dates or timestamps.",
        keys: ValidateStep.commonKeys + [
            KeySpec("fields", required: true, "two or more fields, earliest first, e.g. [startDate, endDate]"),
            KeySpec("strict", "true: each must be after the one before, not equal (default false)"),
        ],
        details: #"""
            Such as a trip's `[startDate, endDate]`. Each value is checked against the last usable
            value before it, so with `[a, b, c]` and `b` null, `c` is checked against `a`. Numbers
            compare exactly (large integers and decimals without binary rounding), RFC 3339
            timestamps by instant (offsets applied, every fraction digit counts), dates `YYYY-MM-DD`
            as days; nulls are skipped. A value that is none of these (`2025-02-30`) is a finding on
            its field; a date against a timestamp is a finding naming both.
            """#,
        example: """
            - validate: order
              collection: trips
              fields: [startDate, endDate]
            """)

    let fields: [FieldID]
    let strict: Bool

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try plan.fields(config, key: "fields", in: collection)
        let node = config["fields"]!
        if fields.count < 2 { throw node.error("'fields' of \(config.what) needs two or more fields, earliest first") }
        let schema = plan.schema(collection)
        for field in fields where ![.string, .number, .decimal, .integer, .any].contains(schema[field].type) {
            throw node.error(
                "'\(schema[field].name)' is \(schema[field].type.rawValue); order compares numbers, dates and timestamps"
            )
        }
        strict = try config.bool("strict") ?? false
    }

    /// A value placed on one line: a number, an instant, or a day.
    enum Point {
        case number(Value)
        case instant(Timestamp.Instant)
        case day(Int)

        var kind: String {
            switch self {
            case .number: return "a number"
            case .instant: return "a timestamp"
            case .day: return "a date"
            }
        }

        init?(_ value: Value) {
            switch value {
            case .int, .double, .decimal:
                self = .number(value)
                return
            case .string(let text):
                if let instant = Timestamp.instant(text) {
                    self = .instant(instant)
                    return
                }
                guard let day = Timestamp.day(text) else { return nil }
                self = .day(day)
            default: return nil
            }
        }

        static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
            a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        }

        static let posix = Locale(identifier: "en_US_POSIX")

        /// The order of two points of one kind; nil for points of different kinds.
        func compare(_ other: Point) -> ComparisonResult? {
            switch (self, other) {
            case (.instant(let a), .instant(let b)): return Self.order(a, b)
            case (.day(let a), .day(let b)): return Self.order(a, b)
            case (.number(let a), .number(let b)): return Self.compareNumbers(a, b)
            default: return nil
            }
        }

        /// Integers exactly, decimals and integers as decimals, a double against anything as doubles.
        static func compareNumbers(_ a: Value, _ b: Value) -> ComparisonResult {
            if case .int(let x) = a, case .int(let y) = b { return order(x, y) }
            func exact(_ value: Value) -> Decimal? {
                switch value {
                case .int(let x): return Decimal(x)
                case .decimal(let text): return Decimal(string: text, locale: posix)
                default: return nil
                }
            }
            if let x = exact(a), let y = exact(b) { return order(x, y) }
            return order(a.number ?? 0, b.number ?? 0)
        }
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        var previous: (field: FieldID, point: Point)?
        for field in fields {
            let value = record[field]
            guard !value.isNull else { continue }
            var name: String { findings.schema[field].name }
            guard let point = Point(value) else {
                findings.fail(
                    field,
                    "\(name) \(RuleFields.describe(value)) is not a number, a date (YYYY-MM-DD) or an RFC 3339 timestamp, so its order cannot be checked"
                )
                continue
            }
            guard let (before, earlier) = previous else {
                previous = (field, point)
                continue
            }
            let shown = "\(name) \(RuleFields.describe(value))"
            let shownBefore = "\(findings.schema[before].name) \(RuleFields.describe(record[before]))"
            guard let order = point.compare(earlier) else {
                findings.fail(
                    field, "\(shown) is \(point.kind) and \(shownBefore) is \(earlier.kind); they cannot be compared")
                continue
            }
            if order == .orderedAscending {
                findings.fail(field, "\(shown) is before \(shownBefore)")
            } else if strict, order == .orderedSame {
                findings.fail(field, "\(shown) is not after \(shownBefore)")
            }
            previous = (field, point)
        }
    }
}
