/// How one collection's records were accounted for in a run: the manifest's
/// `accounting`, the summary line and validation reports all read this.
public struct CollectionAccount: Sendable {
    public let collection: CollectionID
    public let read: Int
    /// Records appended from other collections.
    public let received: Int
    public let emitted: Int
    /// Records of a reference collection: looked up by steps, not written.
    public let reference: Int
    public let rejected: Int
    public let duplicates: Int
    /// Records appended to another collection.
    public let appended: Int
    /// Whether an output writes the whole collection (not so for reference data and
    /// collections appended to another).
    public let written: Bool

    public var balanced: Bool { read + received == emitted + reference + rejected + duplicates + appended }
}

/// The accounting of a run: every record read is emitted, kept as reference data,
/// rejected, a logged duplicate or appended elsewhere; and the pipeline's thresholds.
enum RunAccounting {
    /// One entry per collection read; an internal failure when one does not balance.
    static func balance(_ pipeline: Pipeline, state: RunState) throws -> [CollectionAccount] {
        // Accounting: every record read is emitted, rejected or a logged duplicate.
        var accounting: [CollectionAccount] = []
        for collection in pipeline.collections where !pipeline.derivedCollections.contains(collection) {
            let kept = state.count(collection)
            // Reference data that an output writes anyway counts as emitted.
            let isReference = pipeline.referenceCollections.contains(collection) && !pipeline.writes(collection)
            let entry = CollectionAccount(
                collection: collection, read: state.ingested[collection] ?? 0,
                received: state.appendedIn[collection] ?? 0,
                emitted: isReference ? 0 : kept, reference: isReference ? kept : 0,
                rejected: state.rejectedCount(collection), duplicates: state.duplicateCount(collection),
                appended: state.appendedOut[collection] ?? 0, written: pipeline.writes(collection))
            guard entry.balanced else {
                throw InternalFailure(
                    "accounting of \(collection) does not balance: \(entry.read) read + \(entry.received) appended in ≠ \(entry.emitted) emitted + \(entry.reference) kept as reference + \(entry.rejected) rejected + \(entry.duplicates) duplicates + \(entry.appended) appended elsewhere"
                )
            }
            accounting.append(entry)
        }
        return accounting
    }

    /// The pipeline's thresholds; each failure says which rules rejected how many.
    static func checkThresholds(_ pipeline: Pipeline, accounting: [CollectionAccount], rejects: [Rejection]) -> [String]
    {
        var failures: [String] = []
        /// The message, with which rules rejected how many of these records.
        func failure(_ message: String, _ rejected: some Sequence<Rejection>) -> String {
            RejectBreakdown.describe(rejected).map { "\(message): \($0)" } ?? message
        }
        let total = accounting.reduce(0) { $0 + $1.rejected }
        if let max = pipeline.thresholds.maxRejects, total > max {
            failures.append(
                failure("\(total) records rejected in all, more than thresholds.max-rejects \(max)", rejects))
        }
        for entry in accounting where entry.read + entry.received > 0 {
            let fraction = Double(entry.rejected) / Double(entry.read + entry.received)
            if fraction > pipeline.thresholds.maxRejectFraction {
                failures.append(
                    failure(
                        "\(entry.rejected) of \(entry.read + entry.received) \(entry.collection) records rejected (\(Int((fraction * 100).rounded()))%), more than thresholds.max-reject-fraction \(pipeline.thresholds.maxRejectFraction)",
                        rejects.lazy.filter { $0.collection == entry.collection }))
            }
        }
        return failures
    }
}
