/// `aggregate: group-stats`: statistics per group of a collection, as a new collection
/// (one record per group, the group's fields first, sorted by them): `count`, and per
/// metric `count-where: FIELD` (records where FIELD is true), `mean: FIELD`, `min`, `max`,
/// `sum` (numbers, or for `min`/`max` text such as dates), optionally `where: FIELD` to
/// take only records where that field is true (the mean rating of visited places). A mean
/// over no value is null. The new collection is derived: it reads no records, so the run's
/// accounting does not list it, but it must be written like any other.
public struct GroupStats: Step {
    public static let spec = KindSpec(
        stage: .aggregate, name: "group-stats",
        summary: "Per group of records: count, count-where, mean, min, max, sum, into a new collection.",
        keys: [
            CommonKeys.collection,
            KeySpec("by", required: true, "the field (or fields) that form a group"),
            KeySpec("into", required: true, "the name of the new collection of statistics"),
            KeySpec(
                "metrics", required: true,
                "name: count | {count-where: F} | {mean|min|max|sum|mode: F, where: G}; mode is the most frequent value (ties: the lowest)"
            ),
            KeySpec(
                "decimals",
                "round means and sums to this many decimals, 0 to 10, half away from zero on the exact value (default 2); a sum of an integer field is an integer"
            ),
        ],
        details: #"""
            Metrics: `count`; `{count-where: F}`, records where F is true; `{mean: F}`, `{min: F}`,
            `{max: F}`, `{sum: F}`; `{mode: F}`, the most frequent non-null value, of F's type (values
            compare exactly, so `4` and `4.0` are one; ties go to the lowest value in exact order);
            each optionally with `where: G` to use only records where G is true. Means and sums are
            exact: values are summed as exact decimals (a number at the shortest digits it is written
            with), the mean is the exact quotient, rounded once, so a mean of exactly 3.525 is 3.53
            and 1.005 + 1.67 is 2.68. A sum of an `integer` field is an integer (null beyond 64 bits);
            the sum and mean of a `decimal` field (prices) are exact decimals; anything else is a
            number. One metric names one statistic; `count-where` and `where` need a boolean field,
            `mean` and `sum` a numeric one (or `any`, non-numbers skipped); `min` and `max` take any
            field (dates as ISO text). One record per group, the group fields first, sorted by them; a
            mean over no value is null, and so is a sum too large for a double.

            The new collection is derived: it reads no records, so it is not in the manifest's
            accounting; only aggregate steps may work on it (validate, normalize and enrich steps are
            definition errors: their findings would point at no source line; `lookup` may read it
            with `from`), a `seedforge test` case cannot give it input, and it must be written by an
            output like any collection.
            """#,
        example: """
            - aggregate: group-stats
              collection: attractions
              by: city
              into: cities
              metrics:
                attractions: count
                open: {count-where: isOpen}
                meanRating: {mean: rating}
            """)

    enum Metric: Sendable {
        case count
        case countWhere(FieldID)
        case mean(FieldID, FieldID?)
        case min(FieldID, FieldID?)
        case max(FieldID, FieldID?)
        case sum(FieldID, FieldID?)
        /// The most frequent non-null value; ties go to the lowest in exact order.
        case mode(FieldID, FieldID?)
    }

    public let collection: CollectionID
    let by: [FieldID]
    let into: CollectionID
    let metrics: [(name: String, metric: Metric)]
    let decimals: DecimalPlaces

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        by = try plan.fields(config, key: "by", in: collection)
        let intoNode = try config.require("into")
        into = try CollectionID(intoNode.string("'into'"))
        if plan.schemas[into] != nil {
            throw intoNode.error(
                "'into: \(into)' names a collection that already exists (a source or an earlier group-stats); choose a new name for the statistics"
            )
        }
        decimals = try config.decimalPlaces() ?? DecimalPlaces(2)
        var metrics: [(String, Metric)] = []
        let source = collection
        func field(_ node: ConfigNode) throws -> FieldID {
            try plan.field(node.string("a field"), in: source, at: node)
        }
        /// A field whose declared type is one of `types` (or `any`, checked per record).
        func field(_ node: ConfigNode, _ types: Set<FieldType>, _ role: String) throws -> FieldID {
            let id = try field(node)
            let type = plan.schema(source)[id].type
            guard type == .any || types.contains(type) else {
                let names = types.map(\.rawValue).sorted().joined(separator: " or ")
                throw node.error(
                    "\(role) needs a field of type \(names); '\(plan.schema(source)[id].name)' is \(type.rawValue)")
            }
            return id
        }
        let numeric: Set<FieldType> = [.number, .decimal, .integer]
        for (keyNode, valueNode) in try config.require("metrics").mapping("'metrics'").mapping {
            let key = ConfigNode(node: keyNode, file: config.file)
            let value = ConfigNode(node: valueNode, file: config.file)
            let name = try key.string("a metric name")
            if case .scalar = valueNode {
                guard try value.string("metric '\(name)'") == "count" else {
                    throw value.error("metric '\(name)' must be count or a mapping such as {mean: rating}")
                }
                metrics.append((name, .count))
                continue
            }
            let spec = try value.mapping("metric '\(name)'")
            let unknown = spec.unknownKeys(allowed: ["count-where", "mean", "min", "max", "sum", "mode", "where"])
            if let error = unknown.first { throw error }
            let kinds = ["count-where", "mean", "min", "max", "sum", "mode"].filter { spec[$0] != nil }
            guard kinds.count == 1, let kind = kinds.first, let node = spec[kind] else {
                throw value.error(
                    kinds.isEmpty
                        ? "metric '\(name)' needs one of count-where, mean, min, max, sum, mode"
                        : "metric '\(name)' has \(kinds.joined(separator: " and ")); give each statistic its own metric name"
                )
            }
            let condition = try spec["where"].map { try field($0, [.boolean], "'where' in metric '\(name)'") }
            switch kind {
            case "count-where":
                if let whereNode = spec["where"] {
                    throw whereNode.error("metric '\(name)': count-where already names its condition; drop 'where'")
                }
                metrics.append((name, .countWhere(try field(node, [.boolean], "count-where in metric '\(name)'"))))
            case "mean": metrics.append((name, .mean(try field(node, numeric, "mean in metric '\(name)'"), condition)))
            case "sum": metrics.append((name, .sum(try field(node, numeric, "sum in metric '\(name)'"), condition)))
            case "min": metrics.append((name, .min(try field(node), condition)))
            case "mode": metrics.append((name, .mode(try field(node), condition)))
            default: metrics.append((name, .max(try field(node), condition)))
            }
        }
        self.metrics = metrics
        var schema = Schema()
        for id in by {
            schema.add(
                FieldSpec(
                    name: plan.schema(collection)[id].name, type: plan.schema(collection)[id].type, sourcePath: nil))
        }
        for (name, metric) in metrics {
            let type: FieldType
            switch metric {
            case .count, .countWhere: type = .integer
            case .mean(let field, _), .sum(let field, _):
                // Sums of integers are integers; means and sums of exact decimals (prices) stay exact decimals.
                let input = plan.schema(collection)[field].type
                if case .sum = metric, input == .integer {
                    type = .integer
                } else {
                    type = input == .decimal ? .decimal : .number
                }
            case .min, .max: type = .any
            case .mode(let field, _): type = plan.schema(collection)[field].type
            }
            guard schema.id(of: name) == nil else {
                throw config.error("metric '\(name)' has the name of a group field")
            }
            schema.add(FieldSpec(name: name, type: type, sourcePath: nil))
        }
        plan.declareDerivedCollection(into, schema: schema)
        plan.naturalKeys[into] = by.indices.map(FieldID.init(index:))
    }

    public func run(_ state: RunState) throws {
        var groups: [ByteKey: GroupSummary] = [:]
        var origin: Origin?
        try state.forEachRecord(collection) { record in
            if origin == nil { origin = record.origin }
            summarize(record, file: 0, into: &groups)
        }
        state.setRecords(into, records(of: groups, origin: origin, schema: state.schemas[loaded: collection]))
    }

    /// Adds a record (after those added before, in input order) to its group's summary;
    /// `file` orders summaries of other records (see `GroupSummary`).
    func summarize(_ record: Record, file: Int, into groups: inout [ByteKey: GroupSummary]) {
        var key = ByteKey()
        for field in by { key.append(record[field], text: .folded) }
        // One lookup a record: the summary is made in place the first time, instead of a
        // check and then a second lookup (two hashes of the key a record).
        groups[key, default: GroupSummary(values: by.map { record[$0] }, file: file, metrics: metrics.count)]
            .add(record, file: file, metrics: metrics)
    }

    /// For each metric, whether its summaries' picks keep the least value (`min`) rather
    /// than the greatest (`max`; the others have no picks): what merging summaries needs.
    var picksLeast: [Bool] {
        metrics.map { metric in
            if case .min = metric.metric { return true }
            return false
        }
    }

    /// Whether every sum of the summaries is the same from summaries of parts of the
    /// records as from all of them (see `NumberTotal.isOrderFree`), and with `exact`,
    /// whether every mean and sum is then found from the exact sums alone.
    func isOrderFree(_ groups: [ByteKey: GroupSummary], exact: Bool) -> Bool {
        groups.values.allSatisfy { summary in
            metrics.indices.allSatisfy { number in
                switch metrics[number].metric {
                case .mean, .sum:
                    let total = summary.totals[number]
                    return total.isOrderFree && (!exact || total.isExact(places: decimals))
                default: return true
                }
            }
        }
    }

    /// The statistics' records, one per group sorted by the group fields' key; `origin`:
    /// the collection's first record's.
    func records(of groups: [ByteKey: GroupSummary], origin: Origin?, schema: Schema) -> [Record] {
        /// A mean or sum of `field` in the type the schema declared for it: exact digits
        /// rounded half away from zero; null without values, or when a sum of integers
        /// leaves `Int64` or a sum is not finite.
        func statistic(_ total: NumberTotal, mean: Bool, of field: FieldID) -> Value {
            guard total.count > 0 || !mean else { return .null }
            switch (schema[field].type, mean) {
            case (.integer, false): return total.exactSum(nil)?.int64.map(Value.int) ?? .null
            case (.decimal, true): return total.exactMean(decimals).map { .decimal($0.text) } ?? .null
            case (.decimal, false): return total.exactSum(decimals).map { .decimal($0.text) } ?? .null
            case (_, true): return total.mean(decimals).map(Value.double) ?? .null
            case (_, false): return total.sum(decimals).map(Value.double) ?? .null
            }
        }
        guard let origin else { return [] }
        var out: [Record] = []
        out.reserveCapacity(groups.count)
        for key in groups.keys.sorted() {
            let summary = groups[key]!
            var values = summary.values
            for (number, (_, metric)) in metrics.enumerated() {
                switch metric {
                case .count: values.append(.int(Int64(summary.count)))
                case .countWhere: values.append(.int(Int64(summary.counts[number])))
                case .mean(let field, _): values.append(statistic(summary.totals[number], mean: true, of: field))
                case .sum(let field, _): values.append(statistic(summary.totals[number], mean: false, of: field))
                case .mode: values.append(summary.mode(number))
                case .min, .max: values.append(summary.picks[number]?.value ?? .null)
                }
            }
            out.append(Record(values: values, origin: origin))
        }
        return out
    }
}
