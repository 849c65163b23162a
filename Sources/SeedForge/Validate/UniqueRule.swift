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
        var first: [[Value]: Record] = [:]
        return records.map { record in
            var findings = RuleFindings(record: record, schema: schema, rule: code, severity: severity)
            let key = fields.map { record[$0].joinKey }
            guard !key.contains(where: \.isNull) else { return [] }
            if let earlier = first[key] {
                let names = fields.map { schema[$0].name }.joined(separator: " + ")
                findings.fail(
                    fields[0],
                    "\(names) \(key.map(RuleFields.describe).joined(separator: ", ")) is already used by the record at \(earlier.origin.location.brief)"
                )
            } else {
                first[key] = record
            }
            return findings.list
        }
    }
}
