import Synchronization

/// How many records each collection's sources have read so far, counted a file at a time
/// and readable from any thread while the ingest goes on: the run's own count
/// (`RunState.ingested`) is kept here, and a first run's page files are created from it
/// beside the ingest (`FilesAhead`).
final class RecordsRead: Sendable {
    private let held = Mutex<[CollectionID: Int]>([:])

    func add(_ records: Int, to collection: CollectionID) {
        held.withLock { $0[collection, default: 0] += records }
    }

    subscript(collection: CollectionID) -> Int {
        held.withLock { $0[collection] ?? 0 }
    }

    /// Every collection's count.
    var counts: [CollectionID: Int] {
        get { held.withLock { $0 } }
        set { held.withLock { $0 = newValue } }
    }
}
