import Foundation

/// A `rating-summary` begun in the shards. When the steps left to the finish start with one
/// (and no validate block the shards began comes before it), each shard sums its own
/// reviews' ratings by the key they name (`RatingSummary.add(_:to:)`: a count and an exact
/// decimal sum), orphans included, since which keys match a record is only known once
/// every shard's records meet. Its partial holds those totals; merging partials adds up the
/// totals of each key, so a partial of many shards holds one total a key. The finish joins
/// the totals to the records without passing over the reviews, unless some key matches no
/// record: then it passes over them in a plain run's order to reject those reviews
/// (`RatingSummary.join(_:summed:)`). The reviews stay in the partial as they are.
///
/// The bytes are a plain run's: counts add up, and a sum is exact and the same in any order
/// while the sum of the ratings' magnitudes fits its digits (`NumberTotal.isOrderFree`);
/// a mean is that sum divided once. When some sum is not order-free, or a key has no
/// canonical form (`canonical`: a NaN, an array or an object), or a mean rounded to
/// `decimals` would need the binary fallback, the finish runs the step on the records as a
/// plain run does.
enum ShardRatingSummary {
    /// The rating-summary the finish starts with (the step numbered `split`), when the
    /// shards can begin it.
    static func leading(_ pipeline: Pipeline, split: Int) -> RatingSummary? {
        ShardPlan.leadingStep(pipeline, split: split, as: RatingSummary.self)
    }

    /// A shard's totals of its reviews by key, in `combine`'s order; nil when some total is
    /// not order-free or some key has no canonical form (`canonical`).
    static func summarize(_ step: RatingSummary, state: RunState) throws -> [Partial.Rating]? {
        var totals: [Value: NumberTotal] = [:]
        try state.forEachRecord(step.reviews) { step.add($0, to: &totals) }
        var ratings: [Partial.Rating] = []
        ratings.reserveCapacity(totals.count)
        for (key, total) in totals {
            guard total.isOrderFree, let key = canonical(key) else { return nil }
            ratings.append(Partial.Rating(key: key, total: total))
        }
        return combine([ratings])
    }

    /// The one spelling of keys the join takes as equal (Swift compares strings by
    /// canonical equivalence: `é` in NFC and in NFD is one key): a string in NFC, any other
    /// scalar as it is. Equal keys then have equal bytes, so totals add up by their bytes
    /// alone (`combine`), whoever read which spelling. Nil for a key that is not equal to
    /// itself (a NaN, which the join never matches, and whose totals would each stay
    /// apart), and for an array or object key (no join key in practice).
    static func canonical(_ key: Value) -> Value? {
        switch key {
        case .string(let text):
            // Text with no code point at or above U+0300 is NFC already (most names).
            guard text.unicodeScalars.contains(where: { $0.value >= 0x300 }) else { return key }
            // The standard library's composition, the one `String` equality uses: Foundation's
            // NFC on Linux leaves apart some scripts of Unicode 16 that `==` joins (U+113C5
            // and U+113C2 U+113C2), whose totals then stayed two.
            return .string(String(decoding: text._nfcCodeUnits, as: UTF8.self))
        case .array, .object: return nil
        default: return key == key ? key : nil
        }
    }

    /// The totals of several partials (or shards) added up by key (`canonical` keys: equal
    /// keys have equal bytes), one a key, ordered by the key's encoded bytes: the same
    /// bytes in any grouping and order. Nil when some sum leaves the order-free digits.
    static func combine(_ lists: [[Partial.Rating]]) -> [Partial.Rating]? {
        var all: [(bytes: [UInt8], rating: Partial.Rating)] = []
        all.reserveCapacity(lists.reduce(0) { $0 + $1.count })
        for list in lists {
            for rating in list {
                var bytes: [UInt8] = []
                RecordCodec.encode(rating.key, into: &bytes)
                all.append((bytes, rating))
            }
        }
        // Each list is in this order already: the sort merges runs.
        all.sort { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        var combined: [Partial.Rating] = []
        combined.reserveCapacity(all.count)
        for (index, entry) in all.enumerated() {
            if index > 0, all[index - 1].bytes == entry.bytes {
                combined[combined.count - 1].total.add(entry.rating.total)
            } else {
                combined.append(entry.rating)
            }
        }
        guard combined.allSatisfy(\.total.isOrderFree) else { return nil }
        return combined
    }

    /// Runs the rating-summary the shards began (`step`, the step numbered `index`) from
    /// the partial's totals, with the statistics a plain run's step leaves; false (nothing
    /// done) when the finish must run it on the records.
    static func finish(
        _ partial: Partial, step: RatingSummary, index: Int, pipeline: Pipeline, state: RunState
    ) throws -> Bool {
        guard partial.ratingsComplete, case .step(_, let stage, _) = pipeline.steps[index] else { return false }
        var summed: [Value: NumberTotal] = [:]
        summed.reserveCapacity(partial.ratings.count)
        for rating in partial.ratings {
            // Two totals of one key (spellings the join takes as equal kept apart): the
            // records decide, as a plain run.
            guard summed.updateValue(rating.total, forKey: rating.key) == nil else { return false }
        }
        // A mean rounded to `decimals` from the exact sum alone, never the binary fallback.
        if let places = step.decimals, !summed.values.allSatisfy({ $0.count == 0 || $0.exactMean(places) != nil }) {
            return false
        }
        try StepRunner.measure(step, label: pipeline.steps[index].label, stage: stage, index: index, state: state) {
            try step.join(state, summed: summed)
        }
        return true
    }
}
