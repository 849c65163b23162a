import Synchronization

/// How many records each collection's sources have read so far, counted a file at a time
/// and readable from any thread while the ingest goes on: a first run's page files are
/// created from it beside the ingest (`FilesAhead`). The run's own count is
/// `RunState.ingested`.
final class RecordsRead: Sendable {
    private let counts = Mutex<[CollectionID: Int]>([:])

    func add(_ records: Int, to collection: CollectionID) {
        counts.withLock { $0[collection, default: 0] += records }
    }

    subscript(collection: CollectionID) -> Int {
        counts.withLock { $0[collection] ?? 0 }
    }
}
