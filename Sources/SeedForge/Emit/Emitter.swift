import Foundation
import Logging

/// The emit stage of a run: every output, the side outputs (rejects, duplicates,
/// warnings) and the manifest, written into a staging folder that then replaces the
/// previous dataset in one step. Any failure discards the staging folder and leaves the
/// previous dataset as it was.
///
/// The new dataset is compared with the one it replaces (`snapshot.ndjson` of each, see
/// `ChangeComparison`) and checked against the pipeline's budgets: over budget, it is kept
/// aside as `OUT/.NAME.rejected` instead of swapped in, unless `acceptChanges`.
enum Emitter {
    /// Results of the outputs written with the snapshot, by output position.
    private final class CarriedOutputs: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Int: Result<Manifest.Output, Error>] = [:]

        func set(_ index: Int, _ result: Result<Manifest.Output, Error>) {
            lock.withLock { results[index] = result }
        }

        func get(_ index: Int) -> Result<Manifest.Output, Error>? { lock.withLock { results[index] } }
    }

    /// What a released dataset changed, and whether it was released over budget.
    struct Outcome {
        let changes: Changes
        let budgets: [BudgetCheck]
        /// Over budget and released anyway (`--accept-changes`).
        let accepted: Bool
    }

    static func write(
        _ pipeline: Pipeline, state: RunState, accounting: [CollectionAccount], target: URL,
        started: Date, acceptChanges: Bool = false, keep: Int = 0, ahead: FilesAhead? = nil, logger: Logger
    ) throws -> Outcome {
        let emitClock = ContinuousClock.now
        // The page files created while the steps ran (a first run), in the staging folder
        // made then; the creating stops here, as the outputs start.
        let folder = try ahead?.handOver() ?? OutputDirectory(target: target, threads: state.threads)
        for (file, names) in folder.reserved.sorted(by: { $0.key < $1.key }) {
            logger.debug("\(file): \(names.count) files created ahead")
        }
        let overBudget: BudgetError
        do {
            var outputs: [Manifest.Output] = []
            func write(_ bytes: [UInt8], _ file: String, collection: CollectionID?, format: String, records: Int) throws
            {
                try folder.write(bytes, to: file)
                outputs.append(
                    Manifest.Output(
                        file: file, collection: collection, format: format, records: records, sha256: SHA256.hex(bytes),
                        bytes: bytes.count, files: 1))
            }
            /// A side output, handed to the staged file a piece at a time as it is rendered.
            func stream(
                _ file: String, records: Int, _ render: (([UInt8]) throws -> Void) throws -> Void
            ) -> Result<Manifest.Output, Error> {
                Result {
                    let written = try folder.stream(file) { staged in try render { try staged.write($0) } }
                    return Manifest.Output(
                        file: file, collection: nil, format: "ndjson", records: records, sha256: written.sha256,
                        bytes: written.bytes, files: 1)
                }
            }
            let paths = state.inputFiles
            // The side outputs, in the order the manifest lists them: tasks of the outputs'
            // loop below, after the outputs. Rendered after the loop on one thread while the
            // other waited, they made most of the 0.13-0.19 s from a shipped first run's last
            // page to its flush (0.06-0.07 s as tasks; loaded machine, two runs each).
            let sides: [() -> Result<Manifest.Output, Error>] = [
                {
                    stream(SideOutputs.rejectsFile, records: state.rejects.count) { sink in
                        try SideOutputs.rejects(
                            state.rejects, schemas: state.schemas, paths: paths, threads: state.threads, to: sink)
                    }
                },
                {
                    stream(SideOutputs.duplicatesFile, records: state.duplicateLog.count) { sink in
                        try state.duplicateLog.write(to: sink)
                    }
                },
                {
                    stream(SideOutputs.warningsFile, records: state.warnings.count) { sink in
                        try SideOutputs.warnings(state.warnings, paths: paths, threads: state.threads, to: sink)
                    }
                },
            ]
            // Outputs and the comparison read the collections concurrently: make every
            // collection's store, and the codec that decodes spilled records, first.
            _ = state.spill.codec()
            for collection in pipeline.collections { _ = state.store(collection) }
            // Outputs are independent files: write them concurrently, list them in order.
            state.progress?.begin(
                stage: "write outputs", unit: "outputs", total: pipeline.outputs.count, totalBytes: nil)
            // The json outputs a pages output writes beside its pages (each record rendered
            // once for both), by the pages output's position; written in its task.
            let withPages = PagesBeside.find(in: pipeline.outputs)
            let jsonBeside = Dictionary(uniqueKeysWithValues: withPages.map { ($0.pages, $0.json) })
            let carriedByPages = Set(withPages.map(\.json))
            // The snapshot's lines of a collection are rendered beside the records of one of
            // its outputs where one can (`SnapshotBeside`; pages in the place of the json
            // beside them): that output is written by the snapshot's writing, in its place
            // among the snapshot's collections.
            // Only when that pays (`SnapshotBeside.pays`: every thread busy anyway, or two).
            let snapshotted = Set(Snapshot.collections(of: pipeline))
            let pays = SnapshotBeside.pays(outputs: pipeline.outputs.count, threads: state.threads.count)
            var beside: [CollectionID: SnapshotBeside] = [:]
            for collection in snapshotted where pays {
                beside[collection] = SnapshotBeside.find(
                    for: collection, in: pipeline, schema: state.schemas[loaded: collection], leaving: carriedByPages)
            }
            let carrying = Set(beside.values.map(\.output))
            // The outputs written with the snapshot or with pages, by position (set on the
            // thread that writes them, read after the loop).
            let carried = CarriedOutputs()
            /// Writes output `index`, and the snapshot's lines beside its records when given.
            func writeOutput(
                _ index: Int, lines: (RecordFrame.Beside, ([UInt8]) throws -> Void)?
            ) -> Result<
                Manifest.Output, Error
            > {
                let output = pipeline.outputs[index]
                let store = state.store(output.collection)
                let writer = OutputWriter(
                    folder: folder, file: output.file, outputs: pipeline.outputs, threads: state.threads)
                let clock = ContinuousClock.now
                defer { state.progress?.advance(items: 1, bytes: 0, records: store.count) }
                return Result {
                    let records = try output.selected(store)
                    let fields = output.fields.map { state.schemas[loaded: output.collection][$0] }
                    if let pages = output.format as? PagesFormat, jsonBeside[index] != nil || lines != nil {
                        let json = jsonBeside[index].map { json in
                            (
                                json,
                                OutputWriter(
                                    folder: folder, file: pipeline.outputs[json].file, outputs: pipeline.outputs,
                                    threads: state.threads)
                            )
                        }
                        let result = Result {
                            try pages.write(
                                records, fields: fields, ids: output.fields, into: writer, json: json?.1, lines: lines)
                        }
                        if let (json, jsonWriter) = json {
                            defer { state.progress?.advance(items: 1, bytes: 0, records: store.count) }
                            carried.set(
                                json,
                                result.map {
                                    entry(pipeline.outputs[json], jsonWriter, records: records.count, since: clock)
                                })
                        }
                        try result.get()
                    } else if let (frame, write) = lines {
                        // `SnapshotBeside.find` chose only framed formats; another would
                        // leave the snapshot without this collection's lines.
                        guard let format = output.format as? any FramedFormat else {
                            throw InternalFailure(
                                "\(output.file) cannot render the snapshot's lines beside its records")
                        }
                        try format.write(
                            records, fields: fields, ids: output.fields, into: writer, beside: frame, lines: write)
                    } else {
                        try output.format.write(records, fields: fields, ids: output.fields, into: writer)
                    }
                    try folder.removeUnwritten(output.file, written: writer.written)
                    return entry(output, writer, records: records.count, since: clock)
                }
            }
            /// The manifest's entry for `output`, written by `writer` since `clock`.
            func entry(
                _ output: OutputDefinition, _ writer: OutputWriter, records: Int, since clock: ContinuousClock.Instant
            ) -> Manifest.Output {
                Manifest.Output(
                    file: output.file, collection: output.collection, format: output.formatName, records: records,
                    sha256: writer.digest, bytes: writer.written.reduce(0) { $0 + $1.bytes },
                    files: writer.written.count, seconds: Runner.seconds(since: clock))
            }
            // The outputs that make the most files start first, the others after them in the
            // pipeline's order: creating a file costs the kernel about 25 µs, most of it under
            // its folder's lock, so one output of many files (the shipped cities' 23,256 pages)
            // is the longest task of the loop below, and started after the others it ran alone
            // on one thread while the other waited.
            // Before them, outputs that hold one thread throughout (`startsFirst`: SQLite),
            // and the comparison.
            let files = pipeline.outputs.map { $0.format.files(records: state.store($0.collection).count) }
            let others = pipeline.outputs.indices.filter { !carrying.contains($0) && !carriedByPages.contains($0) }
                .sorted { files[$0] != files[$1] ? files[$0] > files[$1] : $0 < $1 }
            var lines: [CollectionID: Snapshot.Lines] = [:]
            for (collection, found) in beside {
                lines[collection] = { frame, write in
                    let result = withoutActuallyEscaping(write) { write in
                        writeOutput(
                            found.output, lines: (RecordFrame.Beside(frame: frame, sources: found.sources), write))
                    }
                    carried.set(found.output, result)
                    _ = try result.get()
                }
            }
            // What changed since the dataset being replaced, by the pipeline's field names:
            // computed beside the outputs (their time is mostly the file system's).
            enum Work {
                case output(Result<Manifest.Output, Error>)
                case side(Result<Manifest.Output, Error>)
                case compared(Result<Comparison, Error>, seconds: Double)
            }
            // A spilled collection's batches are decoded once for all that read them here:
            // its outputs and the snapshot (unless an output renders its lines).
            func sharing(_ collections: ArraySlice<CollectionID>, _ body: () -> [Work]) throws -> [Work] {
                guard let collection = collections.first else { return body() }
                let readers =
                    pipeline.outputs.indices.filter {
                        pipeline.outputs[$0].collection == collection && !carriedByPages.contains($0)
                    }.count
                    + (snapshotted.contains(collection) && beside[collection] == nil ? 1 : 0)
                return try state.store(collection).sharingDecodedBatches(readers: readers) {
                    try sharing(collections.dropFirst(), body)
                }
            }
            // One loop for the comparison and every other output, each a task of its own: a
            // thread that finishes one takes the next, so no output waits behind the others on
            // one thread while another thread is idle. The outputs that hold a thread throughout
            // start first (`OutputFormat.startsFirst`), then the comparison (which writes the
            // outputs carried with the snapshot), then the other outputs, then the side outputs.
            // The side outputs join the loop only when it has a task for every thread already:
            // with fewer (the CSV bench: one output, carried with the snapshot), a thread
            // that took a side output held its place while the comparison's rendering began,
            // found none free and rendered alone (first run 1.27x the wall time at 0.94x the
            // CPU, paired runs, idle machine); they are written after the loop then.
            let joined = 1 + others.count >= state.threads.count ? sides : []
            // The tasks in the order they start: by position in `work`, the comparison, the
            // outputs in `others`' order, the side outputs; started first come the outputs
            // that start first.
            let leading = others.indices.filter { pipeline.outputs[others[$0]].format.startsFirst }.map { 1 + $0 }
            let starts = leading + (0..<(1 + others.count + joined.count)).filter { !leading.contains($0) }
            let ran = try sharing(pipeline.collections[...]) {
                state.threads.run(starts.count) { order -> Work in
                    let task = starts[order]
                    if task > others.count { return .side(joined[task - 1 - others.count]()) }
                    if task > 0 { return .output(writeOutput(others[task - 1], lines: nil)) }
                    let clock = ContinuousClock.now
                    let result = Result {
                        try Comparison.make(
                            pipeline, state: state, previous: target.path, staging: folder, carried: lines)
                    }
                    return .compared(result, seconds: Runner.seconds(since: clock))
                }
            }
            var work = ran
            for (order, task) in starts.enumerated() { work[task] = ran[order] }
            for collection in pipeline.collections {
                if let shared = state.store(collection).sharedDecodes {
                    logger.debug(
                        "\(collection.name): \(shared.batches) spilled batches decoded \(shared.decodes) times for the outputs and the snapshot"
                    )
                }
            }
            guard case .compared(let compared, let compareSeconds) = work[0] else {
                throw InternalFailure("outputs and comparison came back out of order")
            }
            var results: [Int: Manifest.Output] = [:]
            for (index, task) in zip(others, work.dropFirst(1).prefix(others.count)) {
                guard case .output(let result) = task else {
                    throw InternalFailure("outputs and comparison came back out of order")
                }
                results[index] = try result.get()
            }
            let comparison = try compared.get()
            for index in carrying.union(carriedByPages) {
                guard let result = carried.get(index) else {
                    throw InternalFailure("\(pipeline.outputs[index].file) was not written with the output carrying it")
                }
                results[index] = try result.get()
            }
            for index in pipeline.outputs.indices {
                guard let output = results[index] else {
                    throw InternalFailure("\(pipeline.outputs[index].file) was not written")
                }
                outputs.append(output)
            }
            let changes = comparison.changes
            for task in work.dropFirst(1 + others.count) {
                guard case .side(let result) = task else {
                    throw InternalFailure("outputs and comparison came back out of order")
                }
                outputs.append(try result.get())
            }
            for side in sides.dropFirst(joined.count) { outputs.append(try side().get()) }
            // Written while it was rendered (see `Comparison.make`); listed here, in order.
            outputs.append(
                Manifest.Output(
                    file: Snapshot.file, collection: nil, format: "ndjson", records: comparison.records,
                    sha256: comparison.snapshot.sha256, bytes: comparison.snapshot.bytes, files: 1))
            try write(
                changes.ndjson(), SideOutputs.changesFile, collection: nil, format: "ndjson",
                records: changes.entries.count)
            logger.debug("compared with the previous dataset in \(String(format: "%.3f", compareSeconds)) s")

            let budgets = pipeline.budgets.check(
                accounting: accounting, changes: changes,
                outputBytes: Dictionary(outputs.map { ($0.file, $0.bytes) }, uniquingKeysWith: { first, _ in first }))
            for check in budgets where !check.checked {
                let firstRun = changes.collection(check.of)?.notCompared == Snapshot.Unavailable.noDataset.reason
                let message: Logger.Message = "budget \(check.budget) of \(check.of) \(check.detail)"
                if firstRun { logger.info(message) } else { logger.warning(message) }
            }
            let exceeded = budgets.filter(\.exceeded)
            var findingCounts: [String: Int] = [:]
            for rejection in state.rejects {
                for finding in rejection.findings { findingCounts[finding.rule.rawValue, default: 0] += 1 }
            }
            var warningCounts: [String: Int] = [:]
            for warning in state.warnings { warningCounts[warning.finding.rule.rawValue, default: 0] += 1 }
            let manifest = Manifest(
                pipeline: pipeline, inputs: state.inputFiles.inputs, outputs: outputs, accounting: accounting,
                steps: state.stepStats,
                findings: findingCounts, warnings: warningCounts, incomplete: state.incomplete, startedAt: started,
                seconds: Runner.seconds(since: started),
                threads: state.threads, changes: changes, budgets: budgets, budgetsDeclared: !pipeline.budgets.isEmpty,
                accepted: acceptChanges && !exceeded.isEmpty)
            try folder.write(manifest.render(), to: SideOutputs.manifestFile)
            logger.debug("outputs written in \(String(format: "%.3f", Runner.seconds(since: emitClock))) s")
            try FaultInjection.point("before-swap")
            if exceeded.isEmpty || acceptChanges {
                try folder.commit(keep: keep)
                folder.removeRejected()
                return Outcome(changes: changes, budgets: budgets, accepted: acceptChanges && !exceeded.isEmpty)
            }
            try folder.setAside()
            overBudget = BudgetError(
                dataset: pipeline.name, exceeded: exceeded, keptAt: Paths.display(folder.rejected.path))
        } catch {
            folder.discard()
            throw error
        }
        throw overBudget
    }
}
