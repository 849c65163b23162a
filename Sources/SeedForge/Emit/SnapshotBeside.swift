/// The output that renders a collection's snapshot lines beside its own records, so that
/// each record is read and rendered once for both: a value both write is rendered once and
/// its bytes copied into the line (the values of a record line are compact JSON, the bytes a
/// json or ndjson output writes for a plain value), a field the snapshot keeps and the
/// output does not write is rendered from the record into the line.
///
/// An output qualifies when it renders records with a frame (json or ndjson without a
/// layout, pages whose layout places fields only in objects) and writes every record as it
/// is (no `where`, no `fixed-decimals`); the first such output of the collection is chosen,
/// leaving out the json outputs a pages output writes beside its pages (`PagesBeside`: the
/// pages output qualifies in their place). Without one, the snapshot renders its lines
/// itself. (The shipped cities' `pages`, with `cities.json` beside it: the snapshot's own
/// rendering of the 232,559 cities was 167 of 3,641 CPU samples of a first run.)
struct SnapshotBeside {
    /// The output's position in the pipeline's outputs.
    let output: Int
    /// For each field of the snapshot's lines, where its value comes from.
    let sources: [RecordFrame.Beside.Source]

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

    static func find(
        for collection: CollectionID, in pipeline: Pipeline, schema: Schema, leaving taken: Set<Int>
    ) -> SnapshotBeside? {
        let kept = Snapshot.fields(of: collection, in: pipeline)
        for (index, output) in pipeline.outputs.enumerated() where output.collection == collection {
            guard !taken.contains(index), output.isComplete, output.fixedDecimals.places.isEmpty,
                let written = framedFields(output, schema: schema)
            else { continue }
            let sources = kept.map { field -> RecordFrame.Beside.Source in
                written.firstIndex(of: field).map { .copied($0) } ?? .rendered(field)
            }
            return SnapshotBeside(output: index, sources: sources)
        }
        return nil
    }

    /// The fields `output`'s frame writes, in the frame's order; nil when it renders no
    /// record with a frame.
    private static func framedFields(_ output: OutputDefinition, schema: Schema) -> [FieldID]? {
        let fields = output.fields.map { schema[$0] }
        if let pages = output.format as? PagesFormat {
            return JSONFormat.Elements(fields: fields, ids: output.fields, layout: pages.layout).framedIDs
        }
        guard output.layout == nil, let format = output.format as? any FramedFormat,
            format.frame(fields: fields) != nil
        else { return nil }
        return output.fields
    }
}
