/// A run's side of the comparison: its snapshot, rendered from the records about to be
/// written, and what changed since the dataset at `target` (the one being replaced).
struct Comparison {
    let snapshotBytes: [UInt8]
    let records: Int
    let changes: Changes

    static func make(_ pipeline: Pipeline, state: RunState, previous target: String) throws -> Comparison {
        let bytes = try Snapshot.render(pipeline, state: state)
        let snapshot: Snapshot
        do {
            snapshot = try Snapshot(rendered: bytes)
        } catch {
            throw InternalFailure("the snapshot just rendered cannot be read back: \(error)")
        }
        return Comparison(
            snapshotBytes: bytes, records: snapshot.collections.reduce(0) { $0 + $1.lines.count },
            changes: ChangeComparison.compare(previous: Snapshot.read(folder: target), current: snapshot))
    }
}
