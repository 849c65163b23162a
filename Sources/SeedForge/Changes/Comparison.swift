/// A run's side of the comparison: its snapshot, rendered from the records about to be
/// written, and what changed since the dataset at `target` (the one being replaced).
struct Comparison {
    /// The snapshot file as staged: its size and SHA-256, and the records it lists.
    let snapshot: (bytes: Int, sha256: String)
    let records: Int
    let changes: Changes

    /// Writes the new snapshot into the staging folder as it is rendered (the lines of a
    /// collection in `carried` by the output that renders them), then compares
    /// it with the previous dataset's. Without a previous snapshot (a first run) nothing
    /// is read back: each collection says why it was not compared.
    static func make(
        _ pipeline: Pipeline, state: RunState, previous target: String, staging folder: OutputDirectory,
        carried: [CollectionID: Snapshot.Lines] = [:]
    ) throws -> Comparison {
        var repetition = SnapshotRepeat(previousFolder: target)
        let written = try folder.stream(Snapshot.file) { file in
            try Snapshot.render(pipeline, state: state, carried: carried) {
                repetition.check($0)
                try file.write($0)
            }
        }
        let collections = Snapshot.collections(of: pipeline)
        let records = collections.reduce(0) { $0 + state.count($1) }
        if repetition.repeated() {
            // The previous snapshot written again: every collection holds the same records
            // in the same order, what comparing the files finds for each (key or no key).
            var changes = Changes(collections: [], entries: [])
            for collection in collections {
                var same = CollectionChanges(
                    collection: collection.name, key: Snapshot.key(of: collection, in: pipeline) ?? [])
                (same.previous, same.current) = (state.count(collection), state.count(collection))
                changes.collections.append(same)
            }
            return Comparison(snapshot: written, records: records, changes: changes)
        }
        let previous = Snapshot.read(folder: target)
        guard case .success = previous else {
            var changes = Changes(collections: [], entries: [])
            if case .failure(let why) = previous {
                for collection in collections {
                    let key = Snapshot.key(of: collection, in: pipeline) ?? []
                    changes.collections.append(
                        CollectionChanges(collection: collection.name, key: key, notCompared: why.reason))
                }
            }
            return Comparison(snapshot: written, records: records, changes: changes)
        }
        let current: Snapshot
        do {
            current = try Snapshot(storage: FileBytes.read(path: folder.stagedPath(Snapshot.file)))
        } catch {
            throw InternalFailure("the snapshot just written cannot be read back: \(error)")
        }
        return Comparison(
            snapshot: written, records: records, changes: ChangeComparison.compare(previous: previous, current: current)
        )
    }
}
