/// Renders a file's records a batch at a time in pieces, and writes each batch while the
/// next one renders: one task writes (and hashes) the previous batch's pieces, the others
/// render this batch's, and a thread done with its task takes the next. Rendering no longer
/// waits for writing, nor writing for rendering, whenever two threads are free (in a
/// profile of the 1M-row CSV bench, the ndjson output went on alone for the last ninth of
/// the run, once the snapshot was done, and the second core waited while it wrote and
/// hashed each batch).
/// The file's bytes do not depend on it: the pieces are written in order.
///
/// Holds two batches' pieces at once: the one being written and the one being rendered.
/// Single-file outputs, the snapshot and a spilled sort's runs (`SortedRuns`) write
/// through it, hence its place among the shared supports.
struct RenderAhead<Piece> {
    let threads: Threads
    private var pending: [Piece] = []

    init(threads: Threads) { self.threads = threads }

    /// What each task of a batch gives back.
    private enum Task {
        case wrote(Result<Void, Error>)
        case rendered(Piece)
    }

    /// Renders `count` consecutive records, `render` giving the piece of the records in a
    /// range of them (from 0), while `write` writes the batch before's pieces, in order.
    mutating func batch(
        _ count: Int, render: (Range<Int>) -> Piece, write: ([Piece]) throws -> Void
    ) throws {
        let previous = pending
        pending = []
        // Twice as many pieces as threads: the task that writes takes about as long as
        // rendering one piece, so the threads end their share of the batch close together.
        let pieces = max(1, min(2 * threads.count, count / 4_096))
        let tasks = threads.run(1 + pieces) { task -> Task in
            if task == 0 { return .wrote(Result { try write(previous) }) }
            return .rendered(render((count * (task - 1) / pieces)..<(count * task / pieces)))
        }
        for task in tasks {
            switch task {
            case .wrote(let wrote): try wrote.get()
            case .rendered(let piece): pending.append(piece)
            }
        }
    }

    /// Writes the last batch.
    mutating func finish(write: ([Piece]) throws -> Void) throws {
        try write(pending)
        pending = []
    }
}
