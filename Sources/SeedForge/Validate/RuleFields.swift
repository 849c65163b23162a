/// The `field:` key shared by rules: one field name or a list of them.
enum RuleFields {
    static let key = KeySpec("field", required: true, "the field to check, or a list of fields")

    static func resolve(_ config: ConfigMap, _ plan: PipelinePlan, _ collection: CollectionID) throws -> [FieldID] {
        try plan.fields(config, key: "field", in: collection)
    }

    /// A limit from the pipeline, written as the user would: `5`, not `5.0`.
    static func describe(limit: Double) -> String {
        if limit.rounded() == limit, abs(limit) < 1e15 { return String(Int64(limit)) }
        return JSONWriter.format(limit)
    }

    static func describe(_ value: Value) -> String {
        let text = JSONWriter.compact(value)
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }
}

extension RuleFindings {
    /// Checks fields that must hold text of one format (a timestamp, a date): null passes,
    /// another type fails naming it, text that `isValid` refuses fails with `invalid`.
    mutating func checkFormat(
        _ fields: [FieldID], of record: Record, kind: String, format: String, isValid: (String) -> Bool, example: String
    ) {
        for field in fields {
            let value = record[field]
            guard !value.isNull else { continue }
            let name = schema[field].name
            guard case .string(let text) = value else {
                fail(field, "\(name) must be \(kind) text, found \(value.typeName)")
                continue
            }
            if !isValid(text) {
                fail(field, "\(name) \(RuleFields.describe(value)) is not \(format) (e.g. \(example))")
            }
        }
    }
}

extension Rule {
    public static var comparesRecords: Bool { false }

    /// Checks every record; the default checks them one at a time. Rules that compare
    /// records with each other (`unique`) override it. Returns findings per record.
    public func checkAll(
        _ records: [Record], schema: Schema, code: RuleCode, severity: Severity, threads: Threads
    ) -> [[Finding]] {
        Parallel.chunks(records.count, threads: threads) { range in
            guard let first = range.first else { return [[Finding]]() }
            var findings = RuleFindings(
                records: records, position: first, schema: schema, rule: code, severity: severity)
            var out: [[Finding]] = []
            out.reserveCapacity(range.count)
            for index in range {
                findings.reset(index)
                check(records[index], &findings)
                out.append(findings.list)
            }
            return out
        }.flatMap { $0 }
    }
}
