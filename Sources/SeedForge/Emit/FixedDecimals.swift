/// `fixed-decimals:` of an output: `decimal` fields written with exactly this many digits
/// after the point, `{price: 2}` → `54.00`, `51.77`, `1299.00`, for apps that show prices
/// as text. The dataset's values stay the exact canonical decimals (`54`); only this
/// output's text changes. A value with more digits is rounded half away from zero.
public struct FixedDecimals: Sendable {
    public let places: [(field: FieldID, places: Int)]

    public static let none = FixedDecimals(places: [])

    init(places: [(field: FieldID, places: Int)]) { self.places = places }

    init(_ node: ConfigNode, collection: CollectionID, plan: PipelinePlan, what: String) throws {
        let mapping = try node.mapping("'fixed-decimals' of \(what)")
        guard !mapping.mapping.isEmpty else {
            throw node.error("'fixed-decimals' of \(what) is empty; give {field: places} or remove it")
        }
        var places: [(FieldID, Int)] = []
        for (keyNode, valueNode) in mapping.mapping {
            let key = ConfigNode(node: keyNode, file: node.file)
            let name = try key.string("a field")
            let field = try plan.field(name, in: collection, at: key)
            let type = plan.schema(collection)[field].type
            guard type == .decimal else {
                throw key.error(
                    "'fixed-decimals' applies to decimal fields (exact amounts such as prices); '\(name)' is \(type.rawValue)"
                )
            }
            let value = ConfigNode(node: valueNode, file: node.file)
            let count = try value.int("the decimals of '\(name)'")
            guard DecimalPlaces.allowed.contains(count) else {
                throw value.error("the decimals of '\(name)' must be between 0 and 10, got \(count)")
            }
            places.append((field, count))
        }
        self.places = places
    }

    /// The records with their decimal fields at the fixed number of places.
    func apply(_ records: [Record]) -> [Record] {
        guard !places.isEmpty else { return records }
        return records.map { record in
            var record = record
            for (field, count) in places {
                if case .decimal(let text) = record[field], let exact = ExactNumber(text: text),
                    let fixed = exact.fixedText(places: count)
                {
                    record[field] = .decimal(fixed)
                }
            }
            return record
        }
    }
}

extension ExactNumber {
    /// The value rounded half away from zero to `places` and written with exactly that many
    /// digits after the point (`54` → `54.00` for 2); nil when it does not fit.
    public func fixedText(places: Int) -> String? {
        guard let rounded = rounded(places: places), let digits = rounded.significand(atExponent: -places) else {
            return nil
        }
        var text = String(digits.magnitude)
        guard places > 0 else { return digits < 0 ? "-" + text : text }
        if text.count <= places { text = String(repeating: "0", count: places - text.count + 1) + text }
        text.insert(".", at: text.index(text.endIndex, offsetBy: -places))
        return digits < 0 ? "-" + text : text
    }
}
