/// A `group-stats` begun in the shards. When the steps left to the finish start with one
/// (and no validate block the shards began comes before it), each shard summarises the
/// groups of its own records (`GroupSummary`: counts, exact sums, the first group values,
/// `min`, `max` and `mode` candidates with the file of their first record) and its partial
/// holds them; merging partials adds up each group's summaries into one (`combine`), and
/// the finish writes the statistics from them instead of grouping every record again. The
/// collection's records stay in the partial as they are: the step only adds the statistics.
///
/// The bytes are a plain run's: counts add up; a sum is exact and the same in any order
/// while the sum of the values' magnitudes fits its digits (`NumberTotal.isOrderFree`),
/// and a mean is that sum divided once; of equal `min`, `max` or `mode` keys and of a
/// group's first record, the earliest wins, within a shard as it came and between shards
/// by file (a file's records are all in one shard). When some sum is not order-free, or
/// its mean or rounding would need the binary fallback (numbers near the limits of 38
/// digits), the finish runs the step on the records as a plain run does.
enum ShardGroupStats {
    /// The group-stats the finish starts with (the step numbered `split`), when the shards
    /// can begin it.
    static func leading(_ pipeline: Pipeline, split: Int) -> GroupStats? {
        ShardPlan.leadingStep(pipeline, split: split, as: GroupStats.self)
    }

    /// A shard's summaries of its groups, in key order; nil when some sum is not
    /// order-free. `file` numbers a record's file as the partial does.
    static func summarize(
        _ stats: GroupStats, state: RunState, file: (SourceText) -> Int
    ) throws -> [(key: ByteKey, summary: GroupSummary)]? {
        var groups: [ByteKey: GroupSummary] = [:]
        var last: (source: SourceText, file: Int)?
        try state.forEachRecord(stats.collection) { record in
            if last?.source !== record.origin.source { last = (record.origin.source, file(record.origin.source)) }
            stats.summarize(record, file: last!.file, into: &groups)
        }
        guard stats.isOrderFree(groups, exact: false) else { return nil }
        return groups.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The summaries of several partials added up: one a group, in key order; nil when
    /// some sum is not order-free added up. `earlier(a, b)`: whether file `a`'s records
    /// come before file `b`'s.
    static func combine(
        _ summaries: [(key: ByteKey, summary: GroupSummary)], least: [Bool], earlier: (Int, Int) -> Bool
    ) -> [(key: ByteKey, summary: GroupSummary)]? {
        var groups: [ByteKey: GroupSummary] = [:]
        for (key, summary) in summaries {
            if groups[key] == nil {
                groups[key] = summary
            } else {
                groups[key]!.merge(summary, least: least, earlier: earlier)
            }
        }
        guard groups.values.allSatisfy({ $0.totals.allSatisfy(\.isOrderFree) }) else { return nil }
        return groups.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Runs the group-stats the shards began (`stats`, the step numbered `step`) from the
    /// partial's summaries, with the statistics a plain run's step leaves; false (nothing
    /// done) when the finish must run it on the records.
    static func finish(
        _ partial: Partial, stats: GroupStats, step: Int, pipeline: Pipeline, texts: [SourceText], state: RunState
    ) throws -> Bool {
        guard partial.groupsComplete, case .step(_, let stage, _) = pipeline.steps[step] else { return false }
        let clock = ContinuousClock.now
        // One summary a group: the partials' were added up as they merged (`combine`).
        let groups = [ByteKey: GroupSummary](partial.groups.lazy.map { ($0.key, $0.summary) }) { first, _ in first }
        guard stats.isOrderFree(groups, exact: true) else { return false }
        state.phase = 1 + step
        state.changedByStep = nil
        state.spill.step = pipeline.steps[step].label
        let collection = stats.collection
        // The statistics' records take the origin of the collection's first record.
        var origin: Origin?
        if let first = partial.segments.first(where: { $0.collection == collection }) {
            // One record decoded, not the segment's (up to 65,536).
            origin = try first.bytes.withBuffer { buffer in
                var reader = RecordCodec.Reader(buffer)
                return RecordCodec(sources: [texts[first.file]]).decode(
                    &reader, width: state.schemas[collection]?.fields.count ?? 0
                ).origin
            }
        }
        state.setRecords(
            stats.into, stats.records(of: groups, origin: origin, schema: state.schemas[loaded: collection]))
        try state.spill.check()
        let count = state.count(collection)
        state.stepStats.append(
            StepStat(
                label: pipeline.steps[step].label, stage: stage, collection: collection, recordsIn: count,
                recordsOut: count, rejected: 0, duplicates: 0, warnings: 0, seconds: Runner.seconds(since: clock)))
        return true
    }
}
