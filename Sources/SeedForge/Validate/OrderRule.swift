/// `validate: order`: fields that must not run backwards, such as a trip's start and end
/// dates. Each field must be at least the one before it (`strict: true`: after it).
/// Numbers compare as numbers; text as RFC 3339 timestamps (by instant, across offsets)
/// or as dates `YYYY-MM-DD`. A pair with a null is not checked (that is `required`'s job);
/// a value that is neither, or a date against a timestamp, is a finding of its own.
public struct OrderRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "order",
        summary: "Fields must not run backwards: start before end, for numbers, dates or timestamps.",
        keys: ValidateStep.commonKeys + [
            KeySpec("fields", required: true, "two or more fields, earliest first, e.g. [startDate, endDate]"),
            KeySpec("strict", "true: each must be after the one before, not equal (default false)"),
        ],
        example: """
            - validate: order
              collection: trips
              fields: [startDate, endDate]
            """)

    let fields: [FieldID]
    let strict: Bool

    public init(config: ConfigMap, plan: PipelinePlan, collection: String) throws {
        fields = try plan.fields(config, key: "fields", in: collection)
        if fields.count < 2 { throw config["fields"]!.error("'fields' of \(config.what) needs two or more fields, earliest first") }
        strict = try config.bool("strict") ?? false
    }

    /// A value placed on one line: a number, an instant, or a day.
    enum Point {
        case number(Double)
        case instant(Double)
        case day(Double)

        var kind: String {
            switch self {
            case .number: return "a number"
            case .instant: return "a timestamp"
            case .day: return "a date"
            }
        }

        var position: Double {
            switch self {
            case .number(let x), .instant(let x), .day(let x): return x
            }
        }

        init?(_ value: Value) {
            if let number = value.number { self = .number(number); return }
            guard let text = value.string else { return nil }
            if let instant = Timestamp.parse(text) { self = .instant(instant); return }
            let bytes = Array(text.utf8)
            let isDate = bytes.count == 10 && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-")
                && bytes.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0.element) }
            guard isDate, let midnight = Timestamp.parse(text + "T00:00:00Z") else { return nil }
            self = .day(midnight)
        }

        func sameKind(_ other: Point) -> Bool {
            switch (self, other) {
            case (.number, .number), (.instant, .instant), (.day, .day): return true
            default: return false
            }
        }
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        var previous: (field: FieldID, point: Point)?
        for field in fields {
            let value = record[field]
            guard !value.isNull else { previous = nil; continue }
            let name = findings.schema[field].name
            guard let point = Point(value) else {
                findings.fail(field, "\(name) \(RuleFields.describe(value)) is not a number, a date (YYYY-MM-DD) or an RFC 3339 timestamp, so its order cannot be checked")
                previous = nil
                continue
            }
            defer { previous = (field, point) }
            guard let (before, earlier) = previous else { continue }
            let beforeName = findings.schema[before].name
            let shown = "\(name) \(RuleFields.describe(value))"
            let shownBefore = "\(beforeName) \(RuleFields.describe(record[before]))"
            guard point.sameKind(earlier) else {
                findings.fail(field, "\(shown) is \(point.kind) and \(shownBefore) is \(earlier.kind); they cannot be compared")
                continue
            }
            if point.position < earlier.position {
                findings.fail(field, "\(shown) is before \(shownBefore)")
            } else if strict, point.position == earlier.position {
                findings.fail(field, "\(shown) is not after \(shownBefore)")
            }
        }
    }
}
