/// `enrich: rating-summary`: joins reviews to the records they rate and computes, per
/// record, the review count, the community rating (mean of the reviews' ratings, or null),
/// the seed rating, and the displayed rating: the community rating when there is at least
/// one review, otherwise the seed rating. Reviews whose key matches no record are
/// rejected (`reference`), saying whether the record was missing or itself rejected.
public struct RatingSummary: Step {
    public static let spec = KindSpec(
        stage: .enrich, name: "rating-summary",
        summary:
            "Join reviews to records; add reviewCount, communityRating (mean), seedRating and displayedRating. Orphan reviews are rejected.",
        keys: [
            CommonKeys.collection,
            KeySpec("key", required: true, "the field of the collection that reviews refer to (e.g. id)"),
            KeySpec("from", required: true, "the collection holding the reviews"),
            KeySpec("foreign-key", required: true, "the field of a review naming its record (e.g. shopID)"),
            KeySpec("rating", required: true, "the rating field of a review"),
            KeySpec("seed-rating", "the collection's own rating field, used when a record has no reviews"),
            KeySpec(
                "decimals",
                "round the community rating to this many decimals, half away from zero on the exact mean (default: full precision)"
            ),
            KeySpec("count-field", "name of the added count field (default reviewCount)"),
            KeySpec("community-field", "name of the added mean field (default communityRating)"),
            KeySpec("seed-field", "name of the added seed copy (default seedRating)"),
            KeySpec("displayed-field", "name of the added displayed rating (default displayedRating)"),
        ],
        details: #"""
            Adds the count of reviews, their mean rating (null without reviews), the seed rating, and
            the displayed rating: the mean when there is at least one review, else the seed rating.
            The mean is computed exactly (the ratings at the digits they are written with, summed as
            exact decimals, not binary floats), so 20 ratings summing to 70.5 have the mean 3.525,
            which `decimals: 2` writes as 3.53. A review whose key matches no record is rejected with
            rule `reference`, saying whether the record was missing or was itself rejected.
            """#,
        example: """
            - enrich: rating-summary
              collection: shops
              key: id
              from: reviews
              foreign-key: shopID
              rating: rating
              seed-rating: rating
              decimals: 2
            """)

    public let collection: CollectionID
    let key: FieldID
    let reviews: CollectionID
    let foreignKey: FieldID
    let rating: FieldID
    let seedRating: FieldID?
    let decimals: DecimalPlaces?
    let countField: FieldID
    let communityField: FieldID
    let seedField: FieldID?
    let displayedField: FieldID

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        key = try plan.field(config, key: "key", in: collection)
        reviews = try plan.fromCollection(config, other: collection)
        foreignKey = try plan.field(config, key: "foreign-key", in: reviews)
        rating = try plan.field(config, key: "rating", in: reviews)
        seedRating = try config["seed-rating"] == nil ? nil : plan.field(config, key: "seed-rating", in: collection)
        decimals = try config.decimalPlaces()
        let target = collection
        func add(_ key: String, _ name: String, _ type: FieldType) throws -> FieldID {
            try plan.addField(config.string(key) ?? name, type: type, to: target, at: config[key] ?? config.node)
        }
        let count = try add("count-field", "reviewCount", .integer)
        let community = try add("community-field", "communityRating", .number)
        let seed = seedRating == nil ? nil : try add("seed-field", "seedRating", .number)
        let displayed = try add("displayed-field", "displayedRating", .number)
        (countField, communityField, seedField, displayedField) = (count, community, seed, displayed)
    }

    public func run(_ state: RunState) throws { try join(state, summed: nil) }

    /// Adds a review's rating to the total of the key it names (its foreign key's join
    /// key, null included): what a shard sums of its own reviews (`ShardRatingSummary`).
    func add(_ review: Record, to totals: inout [Value: NumberTotal]) {
        totals[review[foreignKey].joinKey, default: NumberTotal()].add(review[rating])
    }

    /// Rejects the orphan reviews and adds the summary fields to the collection's records.
    /// `summed`: the totals of every review by key (`add(_:to:)`), made in the shards
    /// and added up (exact and order-free, so those a plain run makes of the matched
    /// reviews); the reviews are then only passed over when some key matches no record,
    /// to reject those reviews in a plain run's order. Nil: summed here, as a plain run does.
    func join(_ state: RunState, summed: [Value: NumberTotal]?) throws {
        // An exact sum and count per record: the mean of decimal ratings is exact.
        var totals: [Value: NumberTotal] = [:]
        var targets: Set<Value> = []
        try state.forEachRecord(collection) { targets.insert($0[key].joinKey) }
        let orphans = summed.map { $0.keys.contains { !targets.contains($0) || $0.isNull } } ?? true
        if orphans { totals = try rejectOrphans(state, targets: targets, summing: summed == nil) }
        if var summed {
            // A null key is never matched (its reviews are orphans), not even by a record
            // whose key is null.
            summed[.null] = nil
            totals = summed
        }
        try state.transformRecords(collection, step: "enrich: rating-summary") { record in
            let summary = totals[record[key].joinKey] ?? NumberTotal()
            let seed = seedRating.map { record[$0] } ?? .null
            record[countField] = .int(Int64(summary.count))
            if let mean = summary.mean(decimals) {
                record[communityField] = .double(mean)
                record[displayedField] = .double(mean)
            } else {
                record[communityField] = .null
                record[displayedField] = seed
            }
            if let seedField { record[seedField] = seed }
            return []
        }
    }

    /// Rejects the reviews whose key matches no record of `targets`, in order; with
    /// `summing`, returns the totals of the others (empty without).
    private func rejectOrphans(_ state: RunState, targets: Set<Value>, summing: Bool) throws -> [Value: NumberTotal] {
        var totals: [Value: NumberTotal] = [:]
        let rejectedTargets = Set(state.rejects.lazy.filter { $0.collection == collection }.compactMap(\.id))
        let keyName = state.schemas[loaded: collection][key].name
        let foreignName = state.schemas[loaded: reviews][foreignKey].name
        let foreignSpec = state.schemas[loaded: reviews][foreignKey]
        try state.transformRecords(reviews, step: "enrich: rating-summary") { review in
            let target = review[foreignKey]
            guard targets.contains(target.joinKey), !target.isNull else {
                let shown = RuleFields.describe(target)
                let why =
                    rejectedTargets.contains(target)
                    ? "refers to \(collection) \(keyName) \(shown), which was rejected (see its entry in rejects)"
                    : "\(shown) does not match the \(keyName) of any \(collection) record"
                return [
                    Finding(
                        rule: .reference, message: "\(foreignName) \(why)",
                        location: review.origin.location(ofField: foreignSpec), field: foreignName, value: target)
                ]
            }
            if summing { totals[target.joinKey, default: NumberTotal()].add(review[rating]) }
            return []
        }
        return totals
    }
}
