/// `enrich: lookup`: copies fields from the record of another collection whose key equals
/// this record's key (a trip's name onto each of its places; a trip's statistics onto the
/// trip). A record whose key is null gets the defaults. A key that matches nothing is a
/// finding (`unmatched`: reject by default, or warn, or null to take the defaults quietly):
/// a place naming a trip that does not exist is a broken reference, not a place without a
/// trip. When several records of `from` share a key, the first in order is used and each
/// other one is a warning.
public struct Lookup: Step {
    public static let spec = KindSpec(
        stage: .enrich, name: "lookup",
        summary:
            "Copy fields from the record of another collection with the same key (a join), with defaults when there is none.",
        keys: [
            CommonKeys.collection,
            KeySpec("key", required: true, "the field of the collection holding the key (e.g. tripId)"),
            KeySpec("from", required: true, "the collection looked in (a source, reference data or statistics)"),
            KeySpec("from-key", "its key field (default: the same name as 'key')"),
            KeySpec(
                "take", required: true,
                "{new field: field of from}, or {new field: {field: F, default: V}}; the default (else null) is written when nothing matches"
            ),
            KeySpec(
                "unmatched",
                #"a key that matches nothing: `reject` (default, rule `lookup`), `warn` (kept, defaults taken) or `null` (defaults taken, no finding)"#
            ),
        ],
        details: #"""
            A join: a trip's name onto each of its places, or a trip's statistics (made by
            `group-stats`) onto the trip. A default is read as its field's type, e.g. `places: {field:
            places, default: 0}` for a trip without places. A null key takes the defaults without a
            finding; the `lookup` finding on an unmatched key says when the key belongs to a `from`
            record that was rejected. Integral floats match integers. When several `from` records
            share a key the first is used and each other one is a `lookup` warning; keys of different
            declared types are a definition error.
            """#,
        example: """
            - enrich: lookup
              collection: places
              key: tripId
              from: trips
              from-key: id
              take: {tripName: name}
            """)

    public enum Unmatched: String, CaseIterable, Sendable {
        case reject, warn, null
    }

    public let collection: CollectionID
    let key: FieldID
    let from: CollectionID
    let fromKey: FieldID
    let take: TakenFields
    let unmatched: Unmatched
    /// Whether `from` is made by group-stats: its records point at no source line.
    let fromIsDerived: Bool

    public var lookedUp: CollectionID? { from }

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        key = try plan.field(config, key: "key", in: collection)
        from = try plan.fromCollection(config, other: collection)
        let keyName = plan.schema(collection)[key].name
        if config["from-key"] != nil {
            fromKey = try plan.field(config, key: "from-key", in: from)
        } else {
            guard let id = plan.schema(from).id(of: keyName) else {
                throw config.error(
                    "'\(from)' has no field '\(keyName)'; name its key field with 'from-key' (its fields are: \(plan.schema(from).names.joined(separator: ", ")))"
                )
            }
            fromKey = id
        }
        let types = (plan.schema(collection)[key].type, plan.schema(from)[fromKey].type)
        let numeric: Set<FieldType> = [.integer, .number]
        guard
            types.0 == types.1 || types.0 == .any || types.1 == .any
                || (numeric.contains(types.0) && numeric.contains(types.1))
        else {
            throw (config["from-key"] ?? config["key"]!).error(
                "'\(keyName)' is \(types.0.rawValue) but the key of '\(from)' is \(types.1.rawValue); keys of different types never match"
            )
        }
        unmatched = try config.choice("unmatched", Unmatched.self, choices: Unmatched.allCases) ?? .reject
        fromIsDerived = plan.derivedCollections.contains(from)
        take = try TakenFields(config, plan: plan, collection: collection, from: from, defaults: true)
    }

    public func run(_ state: RunState) throws {
        let step = "enrich: lookup"
        let fromSchema = state.schemas[loaded: from]
        var index: [Value: Int] = [:]
        let candidates = state.records(from)
        for (position, record) in candidates.enumerated() where !record[fromKey].isNull {
            let value = record[fromKey].joinKey
            if let first = index[value] {
                let shown = "\(fromSchema[fromKey].name) \(RuleFields.describe(record[fromKey]))"
                let finding =
                    fromIsDerived
                    ? Finding(
                        rule: .lookup, severity: .warning,
                        message:
                            "\(shown) appears in more than one record of the statistics \(from) (its groups have more fields than the key); lookups use the first",
                        field: fromSchema[fromKey].name, value: record[fromKey])
                    : Finding(
                        rule: .lookup, severity: .warning,
                        message:
                            "\(shown) appears more than once in \(from); lookups use the first (\(candidates[first].origin.location.brief))",
                        location: record.origin.location(ofField: fromSchema[fromKey]), field: fromSchema[fromKey].name,
                        value: record[fromKey])
                state.warn(finding, record: fromIsDerived ? nil : record, in: from, step: step)
            } else {
                index[value] = position
            }
        }
        // Keys of records set aside earlier: "which was rejected" says more than "no match".
        let rejectedKeys = Set(
            state.rejects.lazy.filter { $0.collection == from }.compactMap { $0.record?[fromKey].joinKey })
        let spec = state.schemas[loaded: collection][key]
        try state.transformRecords(collection, step: step, parallel: true) { record in
            let value = record[key]
            let match = value.isNull ? nil : index[value.joinKey]
            take.apply(to: &record, from: match.map { candidates[$0] })
            guard match == nil, !value.isNull, unmatched != .null else { return [] }
            return [
                Finding(
                    rule: .lookup, severity: unmatched == .reject ? .error : .warning,
                    message: rejectedKeys.contains(value.joinKey)
                        ? "\(spec.name) \(RuleFields.describe(value)) refers to a \(from) record that was rejected (see its entry in rejects)"
                        : "\(spec.name) \(RuleFields.describe(value)) matches no \(fromSchema[fromKey].name) of \(from)",
                    location: record.origin.location(ofField: spec), field: spec.name, value: value)
            ]
        }
    }
}
