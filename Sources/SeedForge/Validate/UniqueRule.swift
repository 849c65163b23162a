/// `validate: unique`: no two records share a value (or a combination of values) of the
/// fields. The first record keeps it; every later one is a finding that names the first.
/// Use `aggregate: dedupe` instead to remove duplicates deliberately.
public struct UniqueRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "unique",
        summary: "No two records may share the value of the field (or the combination of fields).",
        keys: ValidateStep.commonKeys + [RuleFields.key],
        details: #"""
            The first record keeps the value; later ones are rejected naming the first's location.
            """#,
        example: """
            - validate: unique
              collection: shops
              field: id
            """)

    let fields: [FieldID]

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {}

    public static var comparesRecords: Bool { true }

    public func checkAll(
        _ records: [Record], schema: Schema, code: RuleCode, severity: Severity, threads: Threads
    ) -> [[Finding]] {
        let (hashes, present) = keyHashes(of: records, threads: threads)
        return checkAll(records, hashes: hashes, present: present, schema: schema, code: code, severity: severity)
    }

    /// The record's key as compared: its fields' values as joins match them (`joinKey`); nil
    /// when one is null (such a record is never a duplicate).
    func key(of record: Record) -> [Value]? {
        let key = fields.map { record[$0].joinKey }
        return key.contains(where: \.isNull) ? nil : key
    }

    /// `checkAll` with each record's key hash made already (`keyHashes`, in this process or
    /// in a shard's): records are taken in order, and a record whose hash an earlier one
    /// has is compared with the earlier records of that hash by their keys (`Value`
    /// equality), so the findings are exactly those of comparing every key with every
    /// earlier one. Keys are made only where hashes meet.
    func checkAll(
        _ records: [Record], hashes: [UInt64], present: [Bool], schema: Schema, code: RuleCode, severity: Severity
    ) -> [[Finding]] {
        precondition(hashes.count == records.count && present.count == records.count, "one key hash a record")
        var results = [[Finding]](repeating: [], count: records.count)
        // The first record of each hash, and of any further key with the same hash.
        var first: [UInt64: Int] = [:]
        first.reserveCapacity(records.count)
        var further: [UInt64: [Int]] = [:]
        let names = fields.map { schema[$0].name }.joined(separator: " + ")
        for position in records.indices where present[position] {
            let hash = hashes[position]
            guard let earliest = first[hash] else {
                first[hash] = position
                continue
            }
            guard let key = key(of: records[position]) else { continue }
            let candidates = [earliest] + (further[hash] ?? [])
            guard let earlier = candidates.first(where: { key == self.key(of: records[$0]) }) else {
                further[hash, default: []].append(position)
                continue
            }
            var findings = RuleFindings(
                records: records, position: position, schema: schema, rule: code, severity: severity)
            findings.fail(
                fields[0],
                "\(names) \(key.map(RuleFields.describe).joined(separator: ", ")) is already used by the record at \(records[earlier].origin.location.brief)"
            )
            results[position] = findings.list
        }
        return results
    }

    /// Each record's key hash, the same in every process (a shard's hashes meet the
    /// finish's): keys equal as `checkAll` compares them hash alike; `present` is false
    /// for a record with a null in its key.
    func keyHashes(of records: [Record], threads: Threads) -> (hashes: [UInt64], present: [Bool]) {
        var hashes = [UInt64](repeating: 0, count: records.count)
        var present = [Bool](repeating: false, count: records.count)
        hashes.withUnsafeMutableBufferPointer { hashes in
            present.withUnsafeMutableBufferPointer { present in
                nonisolated(unsafe) let (hashes, present) = (hashes, present)
                _ = Parallel.chunks(records.count, threads: threads, minimumChunk: 16_384) { range in
                    var bytes: [UInt8] = []
                    for index in range {
                        if let hash = keyHash(of: records[index], into: &bytes) {
                            (hashes[index], present[index]) = (hash, true)
                        }
                    }
                }
            }
        }
        return (hashes, present)
    }

    /// The hash of the record's key (nil when a part is null), from bytes that equal keys
    /// share (`appendHashBytes`). Bytes of different keys may meet: `checkAll` compares
    /// keys wherever hashes do.
    private func keyHash(of record: Record, into bytes: inout [UInt8]) -> UInt64? {
        bytes.removeAll(keepingCapacity: true)
        for field in fields {
            let value = record[field].joinKey
            if value.isNull { return nil }
            Self.appendHashBytes(of: value, to: &bytes)
        }
        return bytes.withUnsafeBufferPointer { KeyTable.hash($0, from: 0, to: $0.count) }
    }

    /// Appends bytes that values equal by `Value` equality share: an integer's or a
    /// double's bits (a zero of either sign as one, since `-0.0 == 0.0`), a text's
    /// canonical composition as the standard library makes it for `String` equality
    /// (`_withNFCCodeUnits`: canonically equivalent strings are equal, and Foundation's NFC
    /// on Linux leaves some scripts of Unicode 16 apart that `==` joins), a decimal's
    /// canonical text, and an array's or object's parts in order (an object's keys with
    /// its values, as `JSONObject` equality compares them), each after its kind and, for a
    /// text, ended by its length.
    private static func appendHashBytes(of value: Value, to bytes: inout [UInt8]) {
        switch value {
        case .null:
            bytes.append(0)
        case .bool(let flag):
            bytes.append(flag ? 1 : 2)
        case .int(let number):
            bytes.append(3)
            withUnsafeBytes(of: number.littleEndian) { bytes += $0 }
        case .double(let number):
            bytes.append(4)
            withUnsafeBytes(of: (number == 0 ? 0 : number).bitPattern.littleEndian) { bytes += $0 }
        case .decimal(let text):
            bytes.append(5)
            appendText(text, to: &bytes)
        case .string(let text):
            bytes.append(6)
            appendText(text, to: &bytes)
        case .array(let items):
            bytes.append(7)
            withUnsafeBytes(of: items.count.littleEndian) { bytes += $0 }
            for item in items { appendHashBytes(of: item, to: &bytes) }
        case .object(let object):
            bytes.append(8)
            withUnsafeBytes(of: object.count.littleEndian) { bytes += $0 }
            for (key, item) in zip(object.keys, object.values) {
                appendText(key, to: &bytes)
                appendHashBytes(of: item, to: &bytes)
            }
        }
    }

    /// A text's canonical composition (ASCII is its own), then its length.
    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        let start = bytes.count
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            bytes += text.utf8
        } else {
            text._withNFCCodeUnits { bytes.append($0) }
        }
        withUnsafeBytes(of: (bytes.count - start).littleEndian) { bytes += $0 }
    }
}
