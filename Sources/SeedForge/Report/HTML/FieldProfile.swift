/// The profile of one field over a collection's emitted records: which types it holds,
/// how often it is null, missing or blank, how many distinct values, the range and a
/// histogram of its numbers, the most common values and the lengths of its texts.
///
/// Distinct values are counted exactly up to `distinctLimit`; past that the count says
/// "more than" and the most common values are those among the first values seen. Numbers
/// and text lengths are kept whole (8 bytes each) for exact ranges and histograms.
struct FieldProfile {
    static let distinctLimit = 100_000

    let path: String
    var present = 0
    var nulls = 0
    /// Texts that are empty or only white space.
    var blanks = 0
    var types: [String: Int] = [:]
    var counts: [Value: Int] = [:]
    var distinctCapped = false
    var numbers: [Double] = []
    /// Characters of each text (or items of each array).
    var lengths: [Int] = []

    init(path: String) { self.path = path }

    mutating func add(_ value: Value) {
        present += 1
        types[value.typeName, default: 0] += 1
        switch value {
        case .null:
            nulls += 1
            return
        case .string(let text):
            lengths.append(text.count)
            if text.allSatisfy(\.isWhitespace) { blanks += 1 }
        case .int, .double, .decimal:
            if let number = value.number { numbers.append(number) }
        case .array(let items):
            lengths.append(items.count)
            // Items of a list of texts or booleans (`types`, tags) are the field's values;
            // a list of numbers (coordinates) is not a category.
            for item in items {
                switch item {
                case .string, .bool: count(item)
                default: break
                }
            }
            return
        case .bool, .object:
            break
        }
        count(value)
    }

    /// One hash lookup per value (the profile's main cost on large datasets).
    mutating func count(_ value: Value) {
        if counts.count < Self.distinctLimit {
            counts[value, default: 0] += 1
        } else if let index = counts.index(forKey: value) {
            counts.values[index] += 1
        } else {
            distinctCapped = true
        }
    }

    /// The type written the most (`number`, `string`, ...), with the others after it.
    var typeSummary: String {
        types.filter { $0.key != "null" }.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map(\.key).joined(separator: ", ")
    }

    var isNumeric: Bool { !numbers.isEmpty && numbers.count * 2 >= present - nulls }

    /// The most common values, most frequent first (ties in the order of their JSON text),
    /// chosen in one pass without sorting every distinct value.
    func top(_ limit: Int) -> [(value: Value, count: Int)] {
        var best: [(value: Value, count: Int, text: String)] = []
        func before(_ a: (Value, Int, String), _ b: (Value, Int, String)) -> Bool {
            a.1 != b.1 ? a.1 > b.1 : a.2 < b.2
        }
        for (value, count) in counts {
            if best.count == limit, let last = best.last, count < last.count { continue }
            let entry = (value, count, JSONWriter.compact(value))
            if best.count == limit, let last = best.last, !before(entry, last) { continue }
            let at = best.firstIndex { before(entry, $0) } ?? best.count
            best.insert(entry, at: at)
            if best.count > limit { best.removeLast() }
        }
        return best.map { ($0.value, $0.count) }
    }

    /// A histogram of `values`: one bar per distinct value when there are at most
    /// `maxBars` of them, else `maxBars` equal bins from the minimum to the maximum.
    static func histogram(_ values: [Double], maxBars: Int = 20) -> [(low: Double, high: Double, count: Int)] {
        guard let low = values.min(), let high = values.max() else { return [] }
        var distinct: [Double: Int] = [:]
        for value in values {
            distinct[value, default: 0] += 1
            if distinct.count > maxBars { break }
        }
        if distinct.count <= maxBars {
            return distinct.keys.sorted().map { ($0, $0, distinct[$0]!) }
        }
        let width = (high - low) / Double(maxBars)
        var bins = [Int](repeating: 0, count: maxBars)
        for value in values {
            let index = width > 0 ? min(maxBars - 1, Int((value - low) / width)) : 0
            bins[index] += 1
        }
        return bins.enumerated().map {
            (low + Double($0.offset) * width, low + Double($0.offset + 1) * width, $0.element)
        }
    }
}

/// The profiles of every field of one collection's records, in the order fields are first
/// seen, and the positions of records that carry coordinates. Nested objects are profiled
/// field by field (`coord.lat`), three levels deep.
struct CollectionProfile {
    var records = 0
    private(set) var fields: [FieldProfile] = []
    private var index: [String: Int] = [:]
    var positions: [Position] = []
    /// Records whose coordinates lie off the globe.
    var offGlobe = 0

    mutating func add(record: Value) {
        records += 1
        if let position = Position.find(in: record) {
            if position.onGlobe { positions.append(position) } else { offGlobe += 1 }
        }
        if case .object(let object) = record { add(object, prefix: "", depth: 0) }
    }

    private mutating func add(_ object: JSONObject, prefix: String, depth: Int) {
        for (key, value) in object.pairs {
            let path = prefix.isEmpty ? key : prefix + "." + key
            if case .object(let inner) = value, depth < 2 {
                add(inner, prefix: path, depth: depth + 1)
                continue
            }
            let slot: Int
            if let known = index[path] {
                slot = known
            } else {
                slot = fields.count
                index[path] = slot
                fields.append(FieldProfile(path: path))
            }
            fields[slot].add(value)
        }
    }
}
