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

    public init(outputRoot: String = "out", lockTimeout: Double = 600, writeOutputs: Bool = true, logger: Logger, threads: Int? = nil) {
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
    public struct Counts: Sendable {
        public let collection: String
        public let read: Int
        /// Records appended from other collections.
        public let received: Int
        public let emitted: Int
        /// Records of a reference collection: looked up by steps, not written.
        public let reference: Int
        public let rejected: Int
        public let duplicates: Int
        /// Records appended to another collection.
        public let appended: Int
        /// Whether an output writes the whole collection (not so for reference data and
        /// collections appended to another).
        public let written: Bool
    }

    public let dataset: String
    public let counts: [Counts]
    public let warnings: Int
    public let seconds: Double
    public let outputFolder: String?
    public let state: RunState
    /// Thresholds exceeded (only ever non-empty when outputs were not written: a writing
    /// run throws `ThresholdError` instead).
    public let thresholdFailures: [String]

    /// One line for the end of a run: what was written, what was set aside, how long.
    public var summaryLine: String {
        let written = counts.filter(\.written).map { "\($0.emitted) \($0.collection)" }.joined(separator: ", ")
        let rejected = counts.reduce(0) { $0 + $1.rejected }
        let duplicates = counts.reduce(0) { $0 + $1.duplicates }
        let place = outputFolder.map { " to \($0)" } ?? ""
        let time = String(format: "%.2f", seconds)
        return "\(dataset): wrote \(written)\(place); \(rejected) rejected, \(duplicates) duplicates removed, \(warnings) warnings (\(time) s)"
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
        let lock: RunLock? = options.writeOutputs
            ? try RunLock(path: root.appendingPathComponent(".\(pipeline.name).lock").path, timeout: options.lockTimeout) {
                logger.notice("waiting for another run of \(pipeline.name) to finish")
            }
            : nil
        defer { withExtendedLifetime(lock) {} }

        let state = RunState(schemas: pipeline.schemas, threads: options.threads)
        var inputs: [Manifest.Input] = []
        var datasetPaths: [String: String] = [:]
        for source in pipeline.sources {
            let clock = ContinuousClock.now
            var pages: [PageMetadata] = []
            // Independent pages (an HTML glob) are extracted on several cores, in batches,
            // and taken in file order: the same result as one at a time.
            if let pagewise = source.kind as? any PagewiseSource, pagewise.readsPagesInParallel, options.threads > 1, source.files.count > 1 {
                try readPagesInParallel(source, pagewise, state: state, options: options, inputs: &inputs, datasetPaths: &datasetPaths, pipeline: pipeline)
                recordIngest(source, state: state, since: clock, logger: logger)
                continue
            }
            var files = source.files
            let sourceRoot = source.root
            var visited: Set<String> = []
            var unreadable = 0
            var fileIndex = 0
            while fileIndex < files.count {
                let file = files[fileIndex]
                fileIndex += 1
                visited.insert(URL(fileURLWithPath: file).resolvingSymlinksInPath().path)
                let contents: InputFile.Contents
                var sink = IngestSink(collection: source.collection, mapping: source.mapping, state: state, threads: options.threads, limits: pipeline.limits)
                let text: SourceText
                do {
                    contents = try InputFile.read(file, maxBytes: pipeline.limits.maxFileBytes)
                    text = SourceText(displayPath: Paths.display(file), bytes: contents.text)
                    text.pageNumber = fileIndex
                    text.absolutePath = file
                    text.sourceRoot = sourceRoot
                    text.fieldPaths = source.mapping.pathsByName
                    state.keep(text)
                    if let page = try source.kind.read(text, into: &sink) { pages.append(page) }
                    // Sources that follow "next" links find their next file in this one.
                    func page() -> Location { text.location(ofOffset: 0, pointer: "page \(fileIndex)") }
                    // A broken chain fails the run (validation reports it and goes on): the
                    // pages after this one would be lost. Other problems stop with a warning.
                    func fail(_ error: SourceError) throws {
                        if options.writeOutputs { throw error }
                        state.sourceErrors.append((source.collection, error))
                    }
                    switch source.kind.nextFile(after: text, path: file) {
                    case nil:
                        break
                    case .refused(let reason):
                        sink.warnFile(Finding(rule: "next-link", severity: .warning, message: reason, location: page()))
                    case .failed(let error):
                        try fail(error)
                    case .file(let next, let link):
                        if let problem = FollowCheck.problem(next: next, root: source.files[0], visited: visited, pages: files.count, limit: source.kind.followLimit) {
                            if problem.missing, source.kind.onMissingPage == .warn {
                                sink.warnFile(Finding(rule: "missing-page", severity: .warning, message: problem.message + " (on-missing-page: warn: the pages read are kept)", location: link ?? page()))
                                state.incomplete.append(.init(
                                    collection: source.collection, page: Paths.relative(file, to: pipeline.baseDirectory),
                                    missing: Paths.relative(next, to: pipeline.baseDirectory)))
                            } else if problem.missing {
                                try fail(SourceError(location: link ?? page(), message: problem.message))
                            } else {
                                sink.warnFile(Finding(rule: "next-link", severity: .warning, message: problem.message, location: page()))
                            }
                        } else {
                            files.append(next)
                        }
                    }
                } catch let error as SourceError where !options.writeOutputs {
                    // Validation reports a file it cannot read and goes on with the others.
                    state.sourceErrors.append((source.collection, error))
                    unreadable += 1
                    continue
                }
                state.ingested[source.collection, default: 0] += sink.count
                let datasetPath = Paths.relative(file, to: pipeline.baseDirectory)
                datasetPaths[text.displayPath] = datasetPath
                inputs.append(Manifest.Input(
                    collection: source.collection, file: datasetPath, sha256: SHA256.hex(buffer: contents.raw.buffer),
                    bytes: contents.raw.count, records: sink.count))
                // Its records are read and it is hashed: the file's pages may leave memory
                // (a message reads back the few it needs).
                text.releasePages()
                logger.debug("read \(sink.count) records from \(text.displayPath)")
            }
            if !pages.isEmpty {
                // A page that failed (reported above) would also count as missing.
                let problems = unreadable > 0 ? [] : PageSequence.problems(pages)
                if let problem = problems.first, options.writeOutputs { throw problem }
                state.sourceErrors += problems.map { (source.collection, $0) }
                state.orderByPage(source.collection, pages: pages)
            }
            recordIngest(source, state: state, since: clock, logger: logger)
        }

        var thresholdFailures: [String] = []
        var index = 0
        while index < pipeline.steps.count {
            if case .validate = pipeline.steps[index] {
                var block: [ValidateStep] = []
                while index < pipeline.steps.count, case .validate(let step) = pipeline.steps[index] {
                    block.append(step)
                    index += 1
                }
                thresholdFailures += runValidation(block, state: state, logger: logger)
                state.releaseSourcePages()
                continue
            }
            guard case .step(let step, let stage, _) = pipeline.steps[index] else { break }
            let label = pipeline.steps[index].label
            let before = (state.records(step.collection).count, state.rejects.count, state.duplicates.count, state.warnings.count)
            let clock = ContinuousClock.now
            state.changedByStep = nil
            try step.run(state)
            state.releaseSourcePages()
            state.stepStats.append(StepStat(
                label: label, stage: stage, collection: step.collection, recordsIn: before.0,
                recordsOut: state.records(step.collection).count, rejected: state.rejects.count - before.1,
                duplicates: state.duplicates.count - before.2, warnings: state.warnings.count - before.3,
                seconds: seconds(since: clock), changed: state.changedByStep))
            let stat = state.stepStats[state.stepStats.count - 1]
            var line = "\(label) \(step.collection): \(stat.recordsIn) in, \(stat.recordsOut) out"
            if stat.rejected > 0 { line += ", \(stat.rejected) rejected" }
            if stat.duplicates > 0 { line += ", \(stat.duplicates) duplicates" }
            logger.info("\(line)")
            index += 1
        }

        // Accounting: every record read is emitted, rejected or a logged duplicate.
        var accounting: [Manifest.Accounting] = []
        for collection in pipeline.collections where !pipeline.derivedCollections.contains(collection) {
            let kept = state.records(collection).count
            // Reference data that an output writes anyway counts as emitted.
            let isReference = pipeline.referenceCollections.contains(collection) && !pipeline.writes(collection)
            let entry = Manifest.Accounting(
                collection: collection, read: state.ingested[collection] ?? 0, received: state.appendedIn[collection] ?? 0,
                emitted: isReference ? 0 : kept, reference: isReference ? kept : 0,
                rejected: state.rejectedCount(collection), duplicates: state.duplicateCount(collection),
                appended: state.appendedOut[collection] ?? 0)
            guard entry.balanced else {
                throw InternalFailure("accounting of \(collection) does not balance: \(entry.read) read + \(entry.received) appended in ≠ \(entry.emitted) emitted + \(entry.reference) kept as reference + \(entry.rejected) rejected + \(entry.duplicates) duplicates + \(entry.appended) appended elsewhere")
            }
            accounting.append(entry)
        }
        thresholdFailures += checkThresholds(pipeline, accounting: accounting, rejects: state.rejects)
        let counts = accounting.map {
            RunResult.Counts(
                collection: $0.collection, read: $0.read, received: $0.received, emitted: $0.emitted, reference: $0.reference,
                rejected: $0.rejected, duplicates: $0.duplicates, appended: $0.appended, written: pipeline.writes($0.collection))
        }
        guard options.writeOutputs else {
            return RunResult(
                dataset: pipeline.name, counts: counts, warnings: state.warnings.count, seconds: seconds(since: started),
                outputFolder: nil, state: state, thresholdFailures: thresholdFailures)
        }
        if !thresholdFailures.isEmpty {
            throw ThresholdError(dataset: pipeline.name, failures: thresholdFailures)
        }
        let emitClock = ContinuousClock.now
        let folder = try OutputDirectory(target: target)
        do {
            var outputs: [Manifest.Output] = []
            func write(_ bytes: [UInt8], _ file: String, collection: String?, format: String, records: Int) throws {
                try folder.write(bytes, to: file)
                outputs.append(Manifest.Output(file: file, collection: collection, format: format, records: records, sha256: SHA256.hex(bytes), bytes: bytes.count, files: 1))
            }
            // Outputs are independent files: write them concurrently, list them in order.
            let written: [Result<Manifest.Output, Error>] = Parallel.run(pipeline.outputs.count) { index in
                let output = pipeline.outputs[index]
                let records = output.selected(state.records(output.collection))
                let writer = OutputWriter(folder: folder, file: output.file, outputs: pipeline.outputs, threads: options.threads)
                let clock = ContinuousClock.now
                return Result {
                    try output.format.write(records, fields: output.fields.map { state.schemas[output.collection]![$0] }, ids: output.fields, into: writer)
                    return Manifest.Output(
                        file: output.file, collection: output.collection, format: output.formatName, records: records.count,
                        sha256: writer.digest, bytes: writer.written.reduce(0) { $0 + $1.bytes }, files: writer.written.count,
                        seconds: seconds(since: clock))
                }
            }
            for result in written { outputs.append(try result.get()) }
            let paths = SideOutputs.PathMap(paths: datasetPaths)
            try write(SideOutputs.rejects(state.rejects, schemas: state.schemas, paths: paths), SideOutputs.rejectsFile, collection: nil, format: "ndjson", records: state.rejects.count)
            try write(SideOutputs.duplicates(state.duplicates, paths: paths), SideOutputs.duplicatesFile, collection: nil, format: "ndjson", records: state.duplicates.count)
            try write(SideOutputs.warnings(state.warnings, paths: paths), SideOutputs.warningsFile, collection: nil, format: "ndjson", records: state.warnings.count)
            var findingCounts: [String: Int] = [:]
            for rejection in state.rejects { for finding in rejection.findings { findingCounts[finding.rule, default: 0] += 1 } }
            var warningCounts: [String: Int] = [:]
            for warning in state.warnings { warningCounts[warning.finding.rule, default: 0] += 1 }
            let manifest = Manifest(
                pipeline: pipeline, inputs: inputs, outputs: outputs, accounting: accounting, steps: state.stepStats,
                findings: findingCounts, warnings: warningCounts, incomplete: state.incomplete, startedAt: started, seconds: seconds(since: started))
            try folder.write(manifest.render(), to: SideOutputs.manifestFile)
            logger.debug("outputs written in \(String(format: "%.3f", seconds(since: emitClock))) s")
            try FaultInjection.point("before-swap")
            try folder.commit()
        } catch {
            folder.discard()
            throw error
        }
        return RunResult(
            dataset: pipeline.name, counts: counts, warnings: state.warnings.count, seconds: seconds(since: started),
            outputFolder: Paths.display(target.path), state: state, thresholdFailures: [])
    }

    /// The ingest step's statistics and progress line for one source.
    static func recordIngest(_ source: SourceDefinition, state: RunState, since clock: ContinuousClock.Instant, logger: Logger) {
        let read = state.ingested[source.collection] ?? 0
        let kept = state.records(source.collection).count
        state.stepStats.append(StepStat(
            label: "ingest: \(source.kindName)", stage: .ingest, collection: source.collection, recordsIn: read,
            recordsOut: kept, rejected: read - kept, duplicates: 0,
            warnings: state.warnings.filter { $0.collection == source.collection }.count, seconds: seconds(since: clock)))
        logger.info("ingest \(source.collection): \(read) records read, \(read - kept) rejected")
    }

    static func readPagesInParallel(
        _ source: SourceDefinition, _ pagewise: any PagewiseSource, state: RunState, options: RunOptions,
        inputs: inout [Manifest.Input], datasetPaths: inout [String: String], pipeline: Pipeline
    ) throws {
        let batch = 256
        var start = 0
        while start < source.files.count {
            let files = Array(source.files[start..<min(start + batch, source.files.count)])
            let firstNumber = start + 1
            let root = source.root
            let results: [Result<(InputFile.Contents, SourceText, ExtractedPage), Error>] = Parallel.run(files.count) { index in
                Result {
                    let contents = try InputFile.read(files[index], maxBytes: pipeline.limits.maxFileBytes)
                    let text = SourceText(displayPath: Paths.display(files[index]), bytes: contents.text)
                    text.pageNumber = firstNumber + index
                    text.absolutePath = files[index]
                    text.sourceRoot = root
                    text.fieldPaths = source.mapping.pathsByName
                    let page = pagewise.extractPage(text, mapping: source.mapping, limits: pipeline.limits)
                    if let failure = page.failure { throw failure }
                    return (contents, text, page)
                }
            }
            for (index, result) in results.enumerated() {
                let contents: InputFile.Contents
                let text: SourceText
                let page: ExtractedPage
                do {
                    (contents, text, page) = try result.get()
                } catch let error as SourceError where !options.writeOutputs {
                    // As when reading one page at a time: validation reports it and goes on.
                    state.sourceErrors.append((source.collection, error))
                    continue
                }
                state.keep(text)
                var sink = IngestSink(collection: source.collection, mapping: source.mapping, state: state, threads: 1, limits: pipeline.limits)
                sink.take(page)
                state.ingested[source.collection, default: 0] += sink.count
                let datasetPath = Paths.relative(files[index], to: pipeline.baseDirectory)
                datasetPaths[text.displayPath] = datasetPath
                inputs.append(Manifest.Input(
                    collection: source.collection, file: datasetPath, sha256: SHA256.hex(buffer: contents.raw.buffer), bytes: contents.raw.count, records: sink.count))
                text.releasePages()
            }
            start += batch
        }
    }

    /// Runs consecutive validate steps as one pass per collection, so a record that
    /// breaks several rules is rejected once, with all its findings. Returns per-rule
    /// threshold failures.
    static func runValidation(_ block: [ValidateStep], state: RunState, logger: Logger) -> [String] {
        var failures: [String] = []
        var collections: [String] = []
        for step in block where !collections.contains(step.collection) { collections.append(step.collection) }
        for collection in collections {
            let records = state.records(collection)
            let schema = state.schemas[collection]!
            var perRecord = [[Finding]](repeating: [], count: records.count)
            for step in block where step.collection == collection {
                let clock = ContinuousClock.now
                let results = step.rule.checkAll(records, schema: schema, code: step.code, severity: step.severity, threads: state.threads)
                var flagged = 0
                var warned = 0
                for (position, findings) in results.enumerated() where !findings.isEmpty {
                    perRecord[position] += findings
                    if findings.contains(where: { $0.severity == .error }) { flagged += 1 } else { warned += 1 }
                }
                state.stepStats.append(StepStat(
                    label: step.label, stage: .validate, collection: collection, recordsIn: records.count,
                    recordsOut: records.count - flagged, rejected: flagged, duplicates: 0, warnings: warned,
                    seconds: seconds(since: clock)))
                // A rule's thresholds count the records it flagged at its severity
                // (rejected for errors, warned about for warnings).
                let hits = step.severity == .error ? flagged : warned
                let verb = step.severity == .error ? "rejected" : "warned about"
                if let max = step.maxRejects, hits > max {
                    failures.append("\(step.label) \(verb) \(hits) \(collection) records, more than its max-rejects \(max)")
                }
                if let fraction = step.maxRejectFraction, !records.isEmpty, Double(hits) / Double(records.count) > fraction {
                    failures.append("\(step.label) \(verb) \(hits) of \(records.count) \(collection) records, more than its max-reject-fraction \(fraction)")
                }
                logger.info("\(step.label) \(collection): \(flagged) rejected")
            }
            var kept: [Record] = []
            for (position, record) in records.enumerated() {
                let findings = perRecord[position]
                for finding in findings where finding.severity == .warning {
                    state.warn(finding, record: record, in: collection, step: "validate: \(finding.rule)")
                }
                let errors = findings.filter { $0.severity == .error }
                if errors.isEmpty {
                    kept.append(record)
                } else {
                    state.reject(record, in: collection, findings: errors, step: "validate: \(errors[0].rule)")
                }
            }
            state.collections[collection] = kept
        }
        return failures
    }

    static func checkThresholds(_ pipeline: Pipeline, accounting: [Manifest.Accounting], rejects: [Rejection] = []) -> [String] {
        var failures: [String] = []
        /// The message, with which rules rejected how many of these records.
        func failure(_ message: String, _ rejected: some Sequence<Rejection>) -> String {
            RejectBreakdown.describe(rejected).map { "\(message): \($0)" } ?? message
        }
        let total = accounting.reduce(0) { $0 + $1.rejected }
        if let max = pipeline.thresholds.maxRejects, total > max {
            failures.append(failure("\(total) records rejected in all, more than thresholds.max-rejects \(max)", rejects))
        }
        for entry in accounting where entry.read + entry.received > 0 {
            let fraction = Double(entry.rejected) / Double(entry.read + entry.received)
            if fraction > pipeline.thresholds.maxRejectFraction {
                failures.append(failure(
                    "\(entry.rejected) of \(entry.read + entry.received) \(entry.collection) records rejected (\(Int((fraction * 100).rounded()))%), more than thresholds.max-reject-fraction \(pipeline.thresholds.maxRejectFraction)",
                    rejects.lazy.filter { $0.collection == entry.collection }))
            }
        }
        return failures
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
