/// The output that renders a collection's snapshot lines beside its own records, so that
/// each record's values are read and rendered once for both (the values of a record line
/// are compact JSON, the bytes a json or ndjson output writes for a plain value).
///
/// An output qualifies when it renders records with a frame (json or ndjson without a
/// layout), writes every record as it is (no `where`, no `fixed-decimals`) and every field
/// the snapshot keeps; the first such output of the collection is chosen. Without one, the
/// snapshot renders its lines itself.
struct SnapshotBeside {
    /// The output's position in the pipeline's outputs.
    let output: Int
    /// For each field of the snapshot's lines, its position in the output's fields.
    let positions: [Int]

    /// Whether rendering the snapshot's lines beside an output pays: it saves CPU (each
    /// value read and formatted once) but writes and hashes both files on the one task that
    /// writes the output's batches (`RenderAhead`), while the other threads render. So when
    /// every thread has an output of its own anyway (more outputs than threads besides the
    /// snapshot, or one thread), and on two threads, where that writing task and the
    /// rendering keep both busy: with one ndjson output on two threads (the CSV bench, 1M
    /// rows, 9 paired runs, load average 6 to 7) the run took 0.89x the CPU time and 0.94x
    /// the wall time of rendering output and snapshot on threads of their own. (Before
    /// `RenderAhead`, when a batch's writing waited for its rendering, it was the other way
    /// round: 0.83x the wall time for their own threads.) With more threads, more outputs'
    /// writing goes on side by side on their own threads (not measured beside).
    static func pays(outputs: Int, threads: Int) -> Bool {
        threads <= 2 || outputs + 1 > threads
    }

    static func find(for collection: CollectionID, in pipeline: Pipeline, schema: Schema) -> SnapshotBeside? {
        let kept = Snapshot.fields(of: collection, in: pipeline)
        for (index, output) in pipeline.outputs.enumerated() where output.collection == collection {
            guard output.isComplete, output.fixedDecimals.places.isEmpty, output.layout == nil,
                let format = output.format as? any FramedFormat,
                format.frame(fields: output.fields.map { schema[$0] }) != nil
            else { continue }
            let positions = kept.compactMap { output.fields.firstIndex(of: $0) }
            guard positions.count == kept.count else { continue }
            return SnapshotBeside(output: index, positions: positions)
        }
        return nil
    }
}
