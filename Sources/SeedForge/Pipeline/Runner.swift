import Foundation
import Logging

/// How to run: where outputs go, how long to wait for another run's lock, whether to
/// write at all (validation writes nothing), and where to log.
public struct RunOptions {
    public var outputRoot: String
    public var lockTimeout: Double
    public var writeOutputs: Bool
    public var logger: Logger
    /// Threads for parsing, per-record steps and outputs; results never depend on it.
    public var threads: Int
    /// Run even when the dataset already is what the run would write (see `UpToDate`).
    public var force: Bool
    /// Bytes of records a run may hold in memory before it spills them to disk
    /// (`--memory-limit`); nil: the pipeline's `limits: max-memory`, else half the
    /// machine's memory.
    public var memoryLimit: Int?
    /// Told what the run is doing as it goes (a live line on a terminal); none by default.
    public var progress: (any ProgressObserver)?
    /// Release the dataset even when it is over the pipeline's budgets (`--accept-changes`).
    public var acceptChanges: Bool
    /// Released datasets to keep in `OUT/.history/NAME` when a run replaces one (`--keep`).
    public var keep: Int
    /// Read only this share of the inputs (`--shard I/N`; see `ShardRun`).
    public var shard: Shard?
    /// Keep every duplicate a dedupe removes as a value in `RunState.duplicates`, even past
    /// the memory limit, where a run otherwise renders them as `duplicates.ndjson` lines on
    /// disk once they outgrow their budget: a pipeline test compares them one by one.
    public var holdsDuplicates = false

    public init(
        outputRoot: String = "out", lockTimeout: Double = 600, writeOutputs: Bool = true, logger: Logger,
        threads: Int? = nil,
        force: Bool = false, memoryLimit: Int? = nil, acceptChanges: Bool = false, keep: Int = 0
    ) {
        self.keep = keep
        self.force = force
        self.memoryLimit = memoryLimit
        self.acceptChanges = acceptChanges
        self.outputRoot = outputRoot
        self.lockTimeout = lockTimeout
        self.writeOutputs = writeOutputs
        self.logger = logger
        self.threads = max(1, threads ?? ProcessInfo.processInfo.activeProcessorCount)
    }
}

/// The outcome of a run: the counts per collection, the state (for validation reports),
/// and the folder written.
public struct RunResult {
    public let dataset: String
    /// How each collection's records were accounted for.
    public let counts: [CollectionAccount]
    public let warnings: Int
    public let seconds: Double
    public let outputFolder: String?
    public let state: RunState
    /// Thresholds exceeded (only ever non-empty when outputs were not written: a writing
    /// run throws `ThresholdError` instead).
    public let thresholdFailures: [String]
    /// True when nothing was done: the dataset already was what the run would write.
    public var unchanged = false
    /// What changed since the previous dataset (nil when nothing was written).
    public var changes: Changes? = nil
    /// Released over budget with `--accept-changes`.
    public var accepted = false

    /// One line for the end of a run: what was written, what was set aside, how long.
    public var summaryLine: String {
        if unchanged {
            return
                "\(dataset): unchanged (same definition, inputs and seedforge version as \(outputFolder ?? "the dataset")), nothing written; --force runs anyway"
        }
        let written = counts.filter(\.written).map { "\($0.emitted) \($0.collection)" }.joined(separator: ", ")
        let rejected = counts.reduce(0) { $0 + $1.rejected }
        let duplicates = counts.reduce(0) { $0 + $1.duplicates }
        let place = outputFolder.map { " to \($0)" } ?? ""
        let time = String(format: "%.2f", seconds)
        return
            "\(dataset): wrote \(written)\(place); \(rejected) rejected, \(duplicates) duplicates removed, \(warnings) warnings (\(time) s)"
    }

    /// What changed since the last run (`cities: +12 −3 ~40 since the last run`), nil when
    /// nothing was written.
    public var changesLine: String? {
        guard let changes else { return nil }
        return changes.summaryLine(dataset: dataset)
            + (accepted ? " (over budget, released with --accept-changes)" : "")
    }
}

/// Runs a loaded pipeline: ingest every source, apply the steps in order, check the
/// thresholds and the accounting (records read = emitted + rejected + duplicates), then
/// write every output into a staging folder and swap it into place.
public enum Runner {
    public static func run(_ pipeline: Pipeline, options: RunOptions) throws -> RunResult {
        let started = Date()
        var logger = options.logger
        logger[metadataKey: "dataset"] = "\(pipeline.name)"
        let root = URL(fileURLWithPath: options.outputRoot)
        let target = root.appendingPathComponent(pipeline.name)
        let lock = try lock(pipeline, options: options, root: root, logger: logger)
        defer { withExtendedLifetime(lock) {} }
        if options.writeOutputs && !options.force {
            // Checked under the lock: another run may have just replaced the dataset.
            if let reason = UpToDate.staleness(of: target, for: pipeline) {
                logger.debug("running: \(reason)")
            } else {
                var result = RunResult(
                    dataset: pipeline.name, counts: [], warnings: 0, seconds: seconds(since: started),
                    outputFolder: Paths.display(target.path), state: RunState(schemas: pipeline.schemas, threads: 1),
                    thresholdFailures: [])
                result.unchanged = true
                return result
            }
        }

        let state = makeState(pipeline, options: options, root: root)
        defer { state.spill.remove() }
        defer { options.progress?.finish() }
        let early = IngestSpillPass(pipeline, state: state)
        // The inputs of the dataset being replaced, whose hashes a file not written since
        // keeps (a run that writes nothing has no dataset to take them from).
        let known =
            options.writeOutputs
            ? KnownInputs(datasetFolder: target.path, baseDirectory: pipeline.baseDirectory)
            : KnownInputs(baseDirectory: pipeline.baseDirectory)
        // A first run's page files are created while the ingest and the steps run
        // (`FilesAhead`); any failure from here removes them with the staging folder.
        let ahead = options.writeOutputs ? FilesAhead.start(pipeline, state: state, target: target) : nil
        do {
            try Ingestion.run(pipeline, state: state, options: options, known: known, logger: logger)
            try state.spill.check()
            ahead?.settle(state)
            let ran = try early?.finish(logger: logger) ?? (next: 0, failures: [])
            let thresholdFailures =
                try ran.failures
                + StepRunner.run(pipeline, state: state, logger: logger, steps: ran.next..<pipeline.steps.count)
            return try conclude(
                pipeline, state: state, thresholdFailures: thresholdFailures, options: options,
                target: target, started: started, ahead: ahead, logger: logger)
        } catch {
            ahead?.abandon()
            throw error
        }
    }

    /// The lock of a dataset's runs (`OUT/.NAME.lock`), when the run writes.
    static func lock(_ pipeline: Pipeline, options: RunOptions, root: URL, logger: Logger) throws -> RunLock? {
        guard options.writeOutputs else { return nil }
        return try RunLock(
            path: root.appendingPathComponent(".\(pipeline.name).lock").path, timeout: options.lockTimeout
        ) {
            logger.notice("waiting for another run of \(pipeline.name) to finish")
        }
    }

    /// A run's state. Records beyond the memory limit go to `OUT/.NAME.spill` (validation:
    /// a folder under the system's temporary folder); a killed run's folder is removed here.
    static func makeState(_ pipeline: Pipeline, options: RunOptions, root: URL) -> RunState {
        let spillFolder = options.writeOutputs ? root.appendingPathComponent(".\(pipeline.name).spill").path : nil
        if let spillFolder { try? FileManager.default.removeItem(atPath: spillFolder) }
        let state = RunState(
            schemas: pipeline.schemas, threads: Threads(options.threads),
            memoryLimit: options.memoryLimit ?? pipeline.limits.maxMemory, spillFolder: spillFolder,
            holdsDuplicates: options.holdsDuplicates)
        state.progress = options.progress
        return state
    }

    /// The end of a run once every step is done: the accounting (records read = emitted +
    /// rejected + duplicates), the thresholds, then the outputs, swapped into place.
    static func conclude(
        _ pipeline: Pipeline, state: RunState, thresholdFailures stepFailures: [String],
        options: RunOptions, target: URL, started: Date, ahead: FilesAhead? = nil, logger: Logger
    ) throws -> RunResult {
        var thresholdFailures = stepFailures
        let counts = try RunAccounting.balance(pipeline, state: state)
        thresholdFailures += RunAccounting.checkThresholds(pipeline, accounting: counts, rejects: state.rejects)
        guard options.writeOutputs else {
            return RunResult(
                dataset: pipeline.name, counts: counts, warnings: state.warnings.count,
                seconds: seconds(since: started),
                outputFolder: nil, state: state, thresholdFailures: thresholdFailures)
        }
        if !thresholdFailures.isEmpty {
            throw ThresholdError(dataset: pipeline.name, failures: thresholdFailures)
        }
        if state.spill.spills > 0 {
            logger.info(
                "memory limit \(ByteSize.format(state.spill.limit)): \(state.spill.spilledRecords) records (\(state.spill.spilledBytes) bytes) written to disk in \(state.spill.spills) batches"
            )
        }
        let outcome = try Emitter.write(
            pipeline, state: state, accounting: counts, target: target, started: started,
            acceptChanges: options.acceptChanges, keep: options.keep, ahead: ahead, logger: logger)
        for (step, records) in state.spill.heldWhole {
            logger.notice(
                "\(step) held all \(records) records of a spilled collection in memory at once: the memory limit \(ByteSize.format(state.spill.limit)) may have been exceeded (see the README's memory table for the steps that do)"
            )
        }
        var result = RunResult(
            dataset: pipeline.name, counts: counts, warnings: state.warnings.count, seconds: seconds(since: started),
            outputFolder: Paths.display(target.path), state: state, thresholdFailures: [])
        result.changes = outcome.changes
        result.accepted = outcome.accepted
        return result
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let duration = ContinuousClock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func seconds(since date: Date) -> Double { Date().timeIntervalSince(date) }
}

/// Named points where a test can make a run fail as a crash would, to prove that a failed
/// run leaves the previous outputs untouched. Set `SEEDFORGE_FAULT=<point>` to trigger:
/// `before-swap` aborts the process after every output is staged, before the swap;
/// `mid-output` after the files of a folder output (pages) are written, before the rest.
public enum FaultInjection {
    public static func point(_ name: String) throws {
        guard ProcessInfo.processInfo.environment["SEEDFORGE_FAULT"] == name else { return }
        FileHandle.standardError.write(Data("seedforge: fault injected at \(name); aborting\n".utf8))
        abort()
    }
}
