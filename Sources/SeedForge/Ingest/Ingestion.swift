import Foundation
import Logging

/// The ingest stage of a run: reads every file of every source into the run's
/// collections, following `next` links and page numbers, and books each file in the
/// run's `InputFiles`.
enum Ingestion {
    /// `known`: the inputs of the dataset being replaced, whose hashes a file with the
    /// same stamp keeps.
    static func run(
        _ pipeline: Pipeline, state: RunState, options: RunOptions, known: KnownInputs, logger: Logger
    ) throws {
        defer { state.currentSource = nil }
        // A sharded run reads its share of the files (see `Shard`), planned once.
        let plan = options.shard.map { ShardPlan.shares(in: pipeline, shard: $0) }
        for (sourceNumber, source) in pipeline.sources.enumerated() {
            let clock = ContinuousClock.now
            var pages: [PageMetadata] = []
            let shares = plan?[sourceNumber]
            if let progress = state.progress {
                // Sizes as listed now (a stat per file); pages found by links add to them.
                let listed = source.files.indices.filter { shares?[$0] != FileShare.none }.map { source.files[$0] }
                let bytes = listed.reduce(0) { $0 + (FileStamp.of($1)?.bytes ?? 0) }
                progress.begin(
                    stage: "ingest \(source.collection)", unit: "files", total: listed.count, totalBytes: bytes)
            }
            // Independent pages (an HTML glob) are extracted on several cores, in batches,
            // and taken in file order: the same result as one at a time.
            if let pagewise = source.kind as? any PagewiseSource, pagewise.readsPagesInParallel, options.threads > 1,
                source.files.count > 1
            {
                try readPagesInParallel(
                    source, number: sourceNumber, shares: shares, pagewise, state: state, options: options,
                    pipeline: pipeline, known: known)
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
                let share = shares.map { fileIndex - 1 < $0.count ? $0[fileIndex - 1] : .whole } ?? .whole
                if share == .none { continue }
                visited.insert(URL(fileURLWithPath: file).resolvingSymlinksInPath().path)
                let contents: InputFile.Contents
                var sink = IngestSink(
                    collection: source.collection, mapping: source.mapping, state: state, threads: state.threads,
                    limits: pipeline.limits)
                sink.failsRun = options.writeOutputs
                let text: SourceText
                do {
                    contents = try InputFile.read(
                        file, maxBytes: pipeline.limits.maxFileBytes, known: known.entry(for: file))
                    // A small file's hash takes less than handing it to another thread.
                    if contents.raw.count >= 1 << 20 {
                        sink.alongside = contents.digest
                    }
                    text = SourceText(displayPath: Paths.display(file), bytes: contents.text)
                    text.pageNumber = fileIndex
                    text.absolutePath = file
                    text.sourceRoot = sourceRoot
                    text.fieldPaths = source.mapping.pathsByName
                    text.collection = source.collection
                    if case .part(let range, let part) = share {
                        sink.byteRange = range
                        state.keep(text, source: sourceNumber, rank: fileIndex - 1, part: part)
                    } else {
                        state.keep(text, source: sourceNumber, rank: fileIndex - 1)
                    }
                    state.currentSource = text
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
                        sink.warnFile(Finding(rule: .nextLink, severity: .warning, message: reason, location: page()))
                    case .failed(let error):
                        try fail(error)
                    case .file(let next, let link):
                        if let problem = FollowCheck.problem(
                            next: next, root: source.files[0], visited: visited, pages: files.count,
                            limit: source.kind.followLimit)
                        {
                            if problem.missing, source.kind.onMissingPage == .warn {
                                sink.warnFile(
                                    Finding(
                                        rule: .missingPage, severity: .warning,
                                        message: problem.message + " (on-missing-page: warn: the pages read are kept)",
                                        location: link ?? page()))
                                state.incomplete.append(
                                    .init(
                                        collection: source.collection,
                                        page: Paths.relative(file, to: pipeline.baseDirectory),
                                        missing: Paths.relative(next, to: pipeline.baseDirectory)))
                            } else if problem.missing {
                                try fail(SourceError(location: link ?? page(), message: problem.message))
                            } else {
                                sink.warnFile(
                                    Finding(
                                        rule: .nextLink, severity: .warning, message: problem.message,
                                        location: page()))
                            }
                        } else {
                            files.append(next)
                            state.progress?.totalUnknown()
                        }
                    }
                } catch let error as SourceError where !options.writeOutputs {
                    // Validation reports a file it cannot read and goes on with the others.
                    state.sourceErrors.append((source.collection, error))
                    unreadable += 1
                    continue
                }
                book(
                    file, text: text, contents: contents, records: sink.count, collection: source.collection,
                    state: state, pipeline: pipeline)
                state.progress?.advance(items: 1, bytes: contents.raw.count, records: sink.count)
                logger.debug("read \(sink.count) records from \(text.displayPath)")
            }
            state.currentSource = nil
            if !pages.isEmpty {
                state.pagesBySource[sourceNumber] = pages
                // A page that failed (reported above) would also count as missing; a shard
                // sees only its pages: the merge checks the sequence.
                let problems = unreadable > 0 || options.shard != nil ? [] : PageSequence.problems(pages)
                if let problem = problems.first, options.writeOutputs { throw problem }
                state.sourceErrors += problems.map { (source.collection, $0) }
                try state.orderByPage(source.collection, pages: pages)
            }
            recordIngest(source, state: state, since: clock, logger: logger)
        }
    }

    /// Books a file whose records are all read: its count for its collection, its hash and
    /// size for the manifest. Then its pages may leave memory (a message reads back the
    /// few it needs).
    static func book(
        _ file: String, text: SourceText, contents: InputFile.Contents, records: Int, collection: CollectionID,
        state: RunState, pipeline: Pipeline
    ) {
        state.recordsRead.add(records, to: collection)
        state.book(
            text,
            Manifest.Input(
                collection: collection, file: Paths.relative(file, to: pipeline.baseDirectory),
                sha256: contents.sha256, bytes: contents.raw.count, records: records,
                // A file written while it was read keeps no stamp: the next run hashes it.
                stamp: contents.raw.stamp.flatMap { $0 == FileStamp.of(file) ? $0 : nil }))
        text.releasePages()
    }

    /// The ingest step's statistics and progress line for one source.
    static func recordIngest(
        _ source: SourceDefinition, state: RunState, since clock: ContinuousClock.Instant, logger: Logger
    ) {
        let read = state.ingested[source.collection] ?? 0
        // Records the steps run at its spills rejected were kept by ingest (`IngestSpillPass`).
        let kept = state.count(source.collection) + state.store(source.collection).droppedBeforeSpill
        state.stepStats.append(
            StepStat(
                label: "ingest: \(source.kindName)", stage: .ingest, collection: source.collection, recordsIn: read,
                recordsOut: kept, rejected: read - kept, duplicates: 0,
                warnings: state.warnings.filter { $0.collection == source.collection }.count,
                seconds: Runner.seconds(since: clock)))
        logger.info("ingest \(source.collection): \(read) records read, \(read - kept) rejected")
    }

    static func readPagesInParallel(
        _ source: SourceDefinition, number sourceNumber: Int, shares: [FileShare]?, _ pagewise: any PagewiseSource,
        state: RunState, options: RunOptions, pipeline: Pipeline, known: KnownInputs
    ) throws {
        let batch = 256
        // Pages are never split between shards: a page is read whole or not at all.
        let positions = source.files.indices.filter { shares?[$0] != FileShare.none }
        var start = 0
        while start < positions.count {
            let taken = Array(positions[start..<min(start + batch, positions.count)])
            let files = taken.map { source.files[$0] }
            let root = source.root
            let results: [Result<(InputFile.Contents, SourceText, ExtractedPage), Error>] = state.threads.run(
                files.count
            ) { index in
                Result {
                    let contents = try InputFile.read(
                        files[index], maxBytes: pipeline.limits.maxFileBytes, known: known.entry(for: files[index]))
                    let text = SourceText(displayPath: Paths.display(files[index]), bytes: contents.text)
                    text.pageNumber = taken[index] + 1
                    text.absolutePath = files[index]
                    text.sourceRoot = root
                    text.fieldPaths = source.mapping.pathsByName
                    text.collection = source.collection
                    let page = pagewise.extractPage(text, mapping: source.mapping, limits: pipeline.limits)
                    if let failure = page.failure { throw failure }
                    return (contents, text, page)
                }
            }
            for (index, result) in results.enumerated() {
                let contents: InputFile.Contents
                let text: SourceText
                var page: ExtractedPage
                do {
                    (contents, text, page) = try result.get()
                } catch let error as SourceError where !options.writeOutputs {
                    // As when reading one page at a time: validation reports it and goes on.
                    state.sourceErrors.append((source.collection, error))
                    continue
                }
                state.keep(text, source: sourceNumber, rank: taken[index])
                // Read before the file had its number: its findings get it now.
                page.placeFindings(inFile: text.fileNumber)
                state.currentSource = text
                var sink = IngestSink(
                    collection: source.collection, mapping: source.mapping, state: state, threads: 1,
                    limits: pipeline.limits)
                try sink.take(page, of: text)
                book(
                    files[index], text: text, contents: contents, records: sink.count, collection: source.collection,
                    state: state, pipeline: pipeline)
                state.progress?.advance(items: 1, bytes: contents.raw.count, records: sink.count)
            }
            start += batch
        }
    }
}

extension ExtractedPage {
    /// Places the page's findings in file `number`: a page extracted on another core is
    /// read before the run numbers its file. Entries without findings stay as they are.
    mutating func placeFindings(inFile number: Int) {
        func placed(_ finding: Finding) -> Finding {
            var finding = finding
            if finding.location?.fileNumber ?? 0 < 0 { finding.location?.fileNumber = number }
            return finding
        }
        fileFindings = fileFindings.map(placed)
        for index in entries.indices {
            switch entries[index] {
            case .withFindings(let value, let origin, let findings):
                entries[index] = .withFindings(value, origin, findings.map(placed))
            case .mapped(let record, let findings) where !findings.isEmpty:
                entries[index] = .mapped(record, findings.map(placed))
            case .unreadable(let finding):
                entries[index] = .unreadable(placed(finding))
            case .record, .deferred, .mapped:
                continue
            }
        }
    }
}
