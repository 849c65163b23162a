import Logging

/// The pipeline's first steps, when they form a `FusedBlock` of steps that look at one
/// record at a time, run on the records as ingest spills them, instead of in a pass of
/// their own after ingest: such a pass read every spilled record back, decoded it,
/// changed it and encoded and wrote it again (the 5M reference job under 512 MiB: 4.95M
/// records, 7.9 of its 28.8 CPU seconds against 3.0 for the same steps in memory). The
/// records ingest keeps in memory go through the steps after ingest, in place, and stay
/// in memory.
///
/// The bytes are those of the pass after ingest: each record goes through the steps in
/// order either way, and each step's rejects and warnings are held back until the block
/// ends, in record order (the spills come in record order, the records kept in memory
/// last). A collection that never spills runs its steps one by one, as always.
final class IngestSpillPass {
    let block: FusedBlock
    private let state: RunState
    private let store: RecordStore
    /// Made on the first spill (nil: the collection has not spilled).
    private var pass: FusedBlock.Pass?
    /// Preparing the steps failed on the first spill: nothing was applied, and the block
    /// runs after ingest as always (where the same error stops the run).
    private var failed = false
    private var seconds = 0.0

    /// Hooks the block's first steps into the spills of their collection, when they fuse.
    init?(_ pipeline: Pipeline, state: RunState) {
        guard let block = FusedBlock.atIngest(pipeline.steps, state: state) else { return nil }
        // A paginated dump's records reach their order (page order) only after the whole
        // source is read: the steps run after that, as always, or their rejects and
        // warnings would come in file order.
        if pipeline.sources.contains(where: { $0.collection == block.collection && $0.kind.ordersRecordsByPage }) {
            return nil
        }
        self.block = block
        self.state = state
        store = state.store(block.collection)
        store.beforeSpill = { [weak self] records in self?.apply(&records) }
        // A dedupe right after the block gets its keys made from the records as they are
        // spilled, after the block's steps, while they are still in memory (see
        // `RecordStore.spillKeys`): at 5M cities under 512 MiB it read all 4.9M back for them.
        if block.next < pipeline.steps.count, case .step(let step as Dedupe, _, _) = pipeline.steps[block.next],
            step.collection == block.collection, let entry = step.spillKeyEntry
        {
            // And when a sort of the collection follows that dedupe, and the dedupe only
            // removes records (no `fill`), the records are spilled as the sort's runs
            // (`SortedAtSpill`): nothing else reads the collection before the sort.
            if step.fill.isEmpty, block.next + 1 < pipeline.steps.count,
                case .step(let sort as Sort, _, _) = pipeline.steps[block.next + 1], sort.collection == block.collection
            {
                sortedAtSpill = SortedAtSpill(sort, space: state.spill, threads: state.threads)
                // The dedupe finds its groups in those runs when the sort brings them together:
                // its own keys are then not gathered (at 20M cities under 2 GiB they were
                // about 13% of the run's samples, and dedupe's merge of them 10% of its time).
                dedupeInRuns =
                    step.blockKeys(sortedBy: sort.keys, schema: state.schemas[loaded: block.collection]) != nil
            }
            if !dedupeInRuns {
                dedupeKeys = RecordStore.SpillKeys(
                    step: block.next, gathering: SortedRuns.Gathering(space: state.spill, threads: state.threads),
                    entry: entry)
            }
        }
    }

    /// The sort after that dedupe, gathered from the first spill on (nil: none).
    private var sortedAtSpill: SortedAtSpill?
    /// Whether that dedupe finds its duplicates in the sort's runs (`Dedupe.blockKeys`).
    private var dedupeInRuns = false

    /// The keys of the dedupe after the block, gathered once the first spill is prepared.
    private var dedupeKeys: RecordStore.SpillKeys?

    private func apply(_ records: inout [Record]) {
        if pass == nil, !failed {
            do {
                pass = try block.prepare(state: state)
                // From this spill on (this batch's keys are made once the steps ran on it).
                store.spillKeys = dedupeKeys
                store.sortedAtSpill = sortedAtSpill
            } catch { failed = true }
        }
        guard let pass else { return }
        let clock = ContinuousClock.now
        // The steps note their phase on what they reject; ingest goes on after them.
        let phase = state.phase
        pass.apply(&records, state: state)
        state.phase = phase
        seconds += Runner.seconds(since: clock)
    }

    /// Ends the hook once ingest is done. When the collection spilled, runs the steps on
    /// the records still in memory and books the block; returns the index of the first
    /// step left to run and the block's threshold failures.
    func finish(logger: Logger) throws -> (next: Int, failures: [String]) {
        store.beforeSpill = nil
        guard let pass else { return (0, []) }
        let clock = ContinuousClock.now
        store.changeResident { pass.apply(&$0, state: state) }
        try state.spill.check()
        state.releaseSourcePages()
        let label = pass.label
        let memory = Runner.seconds(since: clock)
        logger.info(
            "\(label) \(block.collection): run as ingest spilled the records, \(String(format: "%.2f", seconds)) s, then on the records in memory, \(String(format: "%.2f", memory)) s"
        )
        if store.sortedAtSpill != nil {
            logger.info(
                "\(block.collection): spilled as sorted runs of the sort after the dedupe (step \(block.next + 2)), not in input order\(dedupeInRuns ? "; the dedupe finds its duplicates in them" : "")"
            )
        }
        return (block.next, block.finish(pass, state: state, logger: logger))
    }
}
