/// The `field:` key shared by rules: one field name or a list of them.
enum RuleFields {
    static let key = KeySpec("field", required: true, "the field to check, or a list of fields")

    static func resolve(_ config: ConfigMap, _ plan: PipelinePlan, _ collection: String) throws -> [FieldID] {
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

extension Rule {
    /// Checks every record; the default checks them one at a time. Rules that compare
    /// records with each other (`unique`) override it. Returns findings per record.
    public func checkAll(_ records: [Record], schema: Schema, code: String, severity: Severity, threads: Int) -> [[Finding]] {
        Parallel.map(records, threads: threads) { record in
            var findings = RuleFindings(record: record, schema: schema, rule: code, severity: severity)
            check(record, &findings)
            return findings.list
        }
    }
}
