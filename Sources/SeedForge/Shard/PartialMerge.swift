import Foundation
import Logging

extension Partial {
    /// Where each file's records stand in their collection in a plain run: files in the
    /// pipeline's order, and after each paginated source, the collection stably sorted by
    /// that source's page numbers (other files count as page 0), as ingest orders them.
    /// Decided pair by pair, so any subset of the files is ordered as the whole is.
    func recordOrder() -> [Int] {
        var order = [Int](repeating: 0, count: files.count)
        var byCollection: [CollectionID: [Int]] = [:]
        for (number, file) in files.enumerated() { byCollection[file.input.collection, default: []].append(number) }
        for numbers in byCollection.values {
            // `files` is in the pipeline's order already.
            var list: [Int] = []
            var start = 0
            while start < numbers.count {
                let source = files[numbers[start]].place.source
                var end = start
                while end < numbers.count, files[numbers[end]].place.source == source { end += 1 }
                list += numbers[start..<end]
                let pages = numbers[start..<end].filter { files[$0].page != nil }
                if !pages.isEmpty {
                    let ofThisSource = Set(pages)
                    func page(_ number: Int) -> Int { ofThisSource.contains(number) ? files[number].page!.number : 0 }
                    list = list.enumerated().sorted { a, b in
                        let (pa, pb) = (page(a.element), page(b.element))
                        return pa != pb ? pa < pb : a.offset < b.offset
                    }.map(\.element)
                }
                start = end
            }
            for (position, number) in list.enumerated() { order[number] = position }
        }
        return order
    }

    /// The partial with its rejects, warnings and records in a plain run's order: by step;
    /// within ingest by file as read, within a later step by the file's place among the
    /// records; within one file as they came. In a later step, what was found in reference
    /// data every shard reads whole (all from shard 0) comes first, as it came: `nearest`
    /// and `lookup` look at the collection they search before their own records.
    func sorted() -> Partial {
        var copy = self
        let order = recordOrder()
        let shared = Set(identity.shared)
        func key(_ entry: Entry) -> (Int, Int, Int) {
            guard entry.file >= 0, entry.phase == 0 || !shared.contains(files[entry.file].place.source) else {
                return (entry.phase, -1, entry.sequence)
            }
            return (entry.phase, entry.phase == 0 ? entry.file : order[entry.file], entry.sequence)
        }
        copy.entries.sort { key($0) < key($1) }
        copy.groups.sort { a, b in a.key != b.key ? a.key < b.key : order[a.summary.file] < order[b.summary.file] }
        copy.pending.sort { a, b in
            (a.collection, order[a.place.file], a.place.index) < (b.collection, order[b.place.file], b.place.index)
        }
        copy.segments.sort { a, b in
            if a.collection != b.collection { return a.collection < b.collection }
            // A dedupe's local losers come after the collection's records.
            if (a.losers == nil) != (b.losers == nil) { return a.losers == nil }
            // A sorted run stays in its own order, runs in the order of their shards.
            if a.run >= 0 || b.run >= 0 { return (a.run, a.sequence) < (b.run, b.sequence) }
            return (order[a.file], a.sequence) < (order[b.file], b.sequence)
        }
        return copy
    }

    /// Combines partials of the same pipeline, inputs and build that cover different
    /// shards into one: the same bytes for any grouping and order.
    static func merge(_ partials: [(path: String, partial: Partial)]) throws -> Partial {
        guard let (firstPath, first) = partials.first else { throw ShardError("no partials to merge") }
        var covered: [Int: String] = [:]
        for (path, partial) in partials {
            try partial.checkBelongs(with: first.identity, firstPath: firstPath, path: path)
            for shard in partial.covers {
                if let other = covered[shard] {
                    throw ShardError("shard \(shard)/\(first.identity.shards) is in both \(other) and \(path)")
                }
                covered[shard] = path
            }
            guard partial.stats.count == first.stats.count,
                zip(partial.stats, first.stats).allSatisfy({ $0.label == $1.label && $0.collection == $1.collection })
            else { throw ShardError("\(path) ran other steps than \(firstPath)") }
        }
        // Files in the pipeline's order, renumbered.
        var files: [(file: File, partial: Int, number: Int)] = []
        for (index, (_, partial)) in partials.enumerated() {
            for (number, file) in partial.files.enumerated() { files.append((file, index, number)) }
        }
        files.sort { $0.file.place < $1.file.place }
        var renumber = partials.map { [Int](repeating: -1, count: $0.partial.files.count) }
        for (position, entry) in files.enumerated() {
            if position > 0, files[position - 1].file.place == entry.file.place {
                throw ShardError(
                    "\(entry.file.displayPath) was read by two shards (\(partials[files[position - 1].partial].path) and \(partials[entry.partial].path))"
                )
            }
            renumber[entry.partial][entry.number] = position
        }
        var merged = first
        merged.covers = covered.keys.sorted()
        merged.files = files.map { entry in
            var file = entry.file
            file.page = file.page.map { $0.inFiles(renumber[entry.partial]) }
            return file
        }
        merged.entries = []
        merged.segments = []
        merged.pending = []
        var groups: [(key: ByteKey, summary: GroupSummary)] = []
        merged.incomplete = []
        for (index, (_, partial)) in partials.enumerated() {
            let map = renumber[index]
            for var entry in partial.entries {
                if entry.file >= 0 { entry.file = map[entry.file] }
                if entry.recordFile >= 0 { entry.recordFile = map[entry.recordFile] }
                entry.findings = entry.findings.map { $0.inFiles(map) }
                merged.entries.append(entry)
            }
            for var entry in partial.pending {
                entry.place.file = map[entry.place.file]
                entry.findings = entry.findings.map { $0.inFiles(map) }
                merged.pending.append(entry)
            }
            for (key, var summary) in partial.groups {
                summary.renumberFiles(map)
                groups.append((key, summary))
            }
            for var segment in partial.segments {
                segment.file = map[segment.file]
                segment.losers = segment.losers?.map { loser in
                    var renumbered = loser
                    renumbered.winner.file = map[loser.winner.file]
                    return renumbered
                }
                merged.segments.append(segment)
            }
            merged.incomplete += partial.incomplete
            guard index > 0 else { continue }  // the first partial's counts are where the sums start
            for (position, stat) in partial.stats.enumerated() { merged.stats[position].add(stat) }
            merged.ingested.merge(partial.ingested, uniquingKeysWith: +)
            merged.appendedIn.merge(partial.appendedIn, uniquingKeysWith: +)
            merged.appendedOut.merge(partial.appendedOut, uniquingKeysWith: +)
        }
        merged.incomplete.sort { ($0.source, $0.entry.page) < ($1.source, $1.entry.page) }
        // Each group's summaries added up into one, each key's rating totals too: a partial
        // of many shards holds what one would. When a sum leaves the digits that make it
        // order-free (the same in every grouping: see `NumberTotal.absolute`), the finish
        // runs the step whole.
        let order = merged.recordOrder()
        let summaries =
            partials.allSatisfy(\.partial.groupsComplete)
            ? ShardGroupStats.combine(groups, least: first.picksLeast) { order[$0] < order[$1] } : nil
        (merged.groups, merged.groupsComplete) = (summaries ?? [], summaries != nil)
        let ratings =
            partials.allSatisfy(\.partial.ratingsComplete)
            ? ShardRatingSummary.combine(partials.map(\.partial.ratings)) : nil
        (merged.ratings, merged.ratingsComplete) = (ratings ?? [], ratings != nil)
        return merged.sorted()
    }

    /// Refuses a partial of another pipeline definition, input set, build or shard count.
    func checkBelongs(with expected: Identity, firstPath: String, path: String) throws {
        let mine = identity
        if mine.dataset != expected.dataset || mine.pipelineSHA256 != expected.pipelineSHA256 {
            throw ShardError(
                "\(path) is a partial of another pipeline definition (\(mine.dataset), sha256 \(mine.pipelineSHA256.prefix(12))) than \(firstPath) (\(expected.dataset), sha256 \(expected.pipelineSHA256.prefix(12)))"
            )
        }
        if mine.build != expected.build {
            throw ShardError(
                "\(path) was made by seedforge \(mine.build), \(firstPath) by \(expected.build): run every shard with the same build"
            )
        }
        if mine.inputs != expected.inputs {
            throw ShardError(
                "\(path) read another set of input files than \(firstPath) (a file was added, removed or changed between the shards' runs)"
            )
        }
        if mine.shards != expected.shards || mine.split != expected.split || mine.splitBytes != expected.splitBytes
            || mine.shared != expected.shared
        {
            throw ShardError(
                "\(path) is a share of \(mine.shards) shards (files over \(mine.splitBytes) bytes split), \(firstPath) of \(expected.shards) (over \(expected.splitBytes)): merge partials of one split"
            )
        }
    }
}

extension StepStat {
    static func nanoseconds(_ seconds: Double) -> Int { Int((seconds * 1e9).rounded()) }

    /// Adds another shard's counts of the same step.
    mutating func add(_ other: StepStat) {
        self = StepStat(
            label: label, stage: stage, collection: collection, recordsIn: recordsIn + other.recordsIn,
            recordsOut: recordsOut + other.recordsOut, rejected: rejected + other.rejected,
            duplicates: duplicates + other.duplicates, warnings: warnings + other.warnings,
            // In whole nanoseconds: the sum is the same in any grouping.
            seconds: Double(Self.nanoseconds(seconds) + Self.nanoseconds(other.seconds)) / 1e9,
            changed: changed.map { $0 + (other.changed ?? 0) } ?? other.changed)
    }
}

extension ShardRun {
    /// Merges the partial folders `paths` into one partial folder `path`.
    public static func merge(_ paths: [String], into path: String) throws -> Outcome {
        try Partial.checkTarget(path)
        let merged = try Partial.merge(paths.map { ($0, try Partial.read($0)) })
        try merged.write(to: path)
        return Outcome(
            path: path, covers: merged.covers, shards: merged.identity.shards,
            records: merged.segments.reduce(0) { $0 + $1.count }, files: merged.files.count)
    }

    /// The definition file the partials were made from (`merge` without `--pipeline`).
    public static func pipelineFile(of paths: [String]) throws -> String {
        guard let first = paths.first else { throw ShardError("no partials to merge") }
        return try Partial.read(first).identity.pipelineFile
    }

    /// Merges the partials of every shard and finishes the run: the steps the shards left,
    /// then the outputs, manifest and accounting, swapped into place as a plain run does.
    public static func finish(_ pipeline: Pipeline, partials paths: [String], options: RunOptions) throws -> RunResult {
        let started = Date()
        var logger = options.logger
        logger[metadataKey: "dataset"] = "\(pipeline.name)"
        let partial = try Partial.merge(paths.map { ($0, try Partial.read($0)) })
        let split = ShardPlan.split(pipeline)
        try partial.checkBelongs(
            with: identity(
                pipeline, shards: partial.identity.shards, split: split, splitBytes: partial.identity.splitBytes),
            firstPath: pipeline.file + " (as it is now)", path: paths.count == 1 ? paths[0] : "the merged partial")
        let missing = (0..<partial.identity.shards).filter { !partial.covers.contains($0) }
        if !missing.isEmpty {
            throw ShardError(
                "shard\(missing.count == 1 ? "" : "s") \(missing.map(String.init).joined(separator: ", ")) of \(partial.identity.shards) missing: no partial given covers \(missing.count == 1 ? "it" : "them") (run `seedforge run \(pipeline.file) --shard \(missing[0])/\(partial.identity.shards) --partial DIR`)"
            )
        }
        let root = URL(fileURLWithPath: options.outputRoot)
        let target = root.appendingPathComponent(pipeline.name)
        let lock = try Runner.lock(pipeline, options: options, root: root, logger: logger)
        defer { withExtendedLifetime(lock) {} }
        let state = Runner.makeState(pipeline, options: options, root: root)
        defer { state.spill.remove() }
        defer { options.progress?.finish() }
        // A dedupe the shards began: their survivors deduplicated, their losers logged; or,
        // when the collection is large for the memory limit, its records put back whole in
        // input order for the step to run as in a plain run (spilling past the limit).
        let begun = ShardDedupe.leading(pipeline, split: split)
        let whole = begun.flatMap { ShardDedupe.fits(partial, limit: state.spill.limit) ? nil : $0.collection }
        let texts = try restore(partial, pipeline: pipeline, into: state, whole: whole)
        // A validate block with `unique` the shards began: compared and settled here.
        if let block = ShardUnique.block(pipeline, split: split) {
            try ShardUnique.finish(
                partial, pipeline: pipeline, block: block, texts: texts, state: state, logger: logger)
        }
        var finished = split
        // A group-stats the shards began: their summaries merged (the records stay as they are).
        if let stats = ShardGroupStats.leading(pipeline, split: split),
            try ShardGroupStats.finish(
                partial, stats: stats, step: split, pipeline: pipeline, texts: texts, state: state)
        {
            let stat = state.stepStats[state.stepStats.count - 1]
            logger.info(
                "\(stat.label) \(stat.collection): \(state.count(stats.into)) groups (begun in the shards)")
            finished += 1
        }
        // A rating-summary the shards began: their totals joined to the records.
        if let step = ShardRatingSummary.leading(pipeline, split: split),
            try ShardRatingSummary.finish(partial, step: step, index: split, pipeline: pipeline, state: state)
        {
            let stat = state.stepStats[state.stepStats.count - 1]
            var line = "\(stat.label) \(stat.collection): \(stat.recordsIn) in, \(stat.recordsOut) out"
            if stat.rejected > 0 { line += ", \(stat.rejected) rejected" }
            logger.info("\(line) (begun in the shards)")
            finished += 1
        }
        if let dedupe = begun, whole == nil {
            let lost = try ShardDedupe.finish(
                partial, dedupe: dedupe, step: split, pipeline: pipeline, texts: texts, state: state)
            let stat = state.stepStats[state.stepStats.count - 1]
            logger.info(
                "\(stat.label) \(stat.collection): \(stat.recordsIn) in, \(stat.recordsOut) out, \(stat.duplicates) duplicates (begun in the shards)"
            )
            finished += 1
            // The sort after it, begun in the shards: their sorted orders merged.
            if let sort = ShardDedupeSort.following(pipeline, split: split),
                case .step(_, let stage, _) = pipeline.steps[split + 1]
            {
                let clock = ContinuousClock.now
                if try ShardDedupeSort.finish(partial, sort: sort, lost: lost, state: state) {
                    let count = state.count(sort.collection)
                    state.stepStats.append(
                        StepStat(
                            label: pipeline.steps[split + 1].label, stage: stage, collection: sort.collection,
                            recordsIn: count, recordsOut: count, rejected: 0, duplicates: 0, warnings: 0,
                            seconds: Runner.seconds(since: clock)))
                    logger.info(
                        "\(pipeline.steps[split + 1].label) \(sort.collection): the shards' sorted survivors merged")
                    finished += 1
                }
            }
        }
        // The sorts the shards began: their sorted runs merged, not sorted again.
        let sorts = ShardSort.leading(pipeline, split: split)
        for (offset, sort) in sorts.enumerated() {
            guard case .step(_, let stage, _) = pipeline.steps[split + offset] else { break }
            let clock = ContinuousClock.now
            try ShardSort.mergeRuns(partial, sort: sort, texts: texts, into: state)
            let count = state.count(sort.collection)
            state.stepStats.append(
                StepStat(
                    label: pipeline.steps[split + offset].label, stage: stage, collection: sort.collection,
                    recordsIn: count, recordsOut: count, rejected: 0, duplicates: 0, warnings: 0,
                    seconds: Runner.seconds(since: clock)))
            logger.info("\(pipeline.steps[split + offset].label) \(sort.collection): the shards' sorted runs merged")
        }
        try state.spill.check()
        // The shards' validate steps' thresholds, on the counts of all shards, in the order a
        // plain run checks them (the order of their statistics).
        var failures: [String] = []
        let checked = zip(
            StepRunner.validationOrder(pipeline.steps[0..<split]), state.stepStats.lazy.filter { $0.stage == .validate }
        )
        for (step, stat) in checked { failures += ValidationPass.thresholdFailures(step, stat: stat) }
        finished += sorts.count
        failures += try StepRunner.run(pipeline, state: state, logger: logger, steps: finished..<pipeline.steps.count)
        return try Runner.conclude(
            pipeline, state: state, thresholdFailures: failures, options: options, target: target,
            started: started, logger: logger)
    }

    /// Puts a complete partial's records (but sorted runs; with the losers of a dedupe begun
    /// in the shards only for the collection `whole`), rejects, warnings and counts into
    /// `state`, and checks every paginated source's page sequence; returns the partial's
    /// files as read again, by number.
    static func restore(
        _ partial: Partial, pipeline: Pipeline, into state: RunState, whole: CollectionID? = nil
    ) throws -> [SourceText] {
        var texts: [SourceText] = []
        for (index, file) in partial.files.enumerated() {
            // The shards' parts of a split file are one file: read once, booked once.
            if file.place.part > 0, index > 0, partial.files[index - 1].place.source == file.place.source,
                partial.files[index - 1].place.rank == file.place.rank
            {
                texts.append(texts[texts.count - 1])
                state.addRecords(file.input.records, to: texts[texts.count - 1])
                continue
            }
            let contents = try InputFile.read(
                file.absolutePath, maxBytes: pipeline.limits.maxFileBytes,
                known: file.input.stamp.map { ($0, file.input.sha256) })
            guard contents.sha256 == file.input.sha256 else {
                throw ShardError("\(file.displayPath) changed after its shard read it: run the shards again")
            }
            let text = SourceText(displayPath: file.displayPath, bytes: contents.text)
            text.pageNumber = file.pageNumber
            text.absolutePath = file.absolutePath
            text.sourceRoot = file.sourceRoot
            text.recordsPointer = file.recordsPointer
            text.recordKeys = file.recordKeys
            text.layout = file.cellLayout ?? file.fieldSelectors.map(HTMLLayout.init(selectors:))
            text.fieldPaths = pipeline.sources[file.place.source].mapping.pathsByName
            text.collection = file.input.collection
            text.releasePages()
            state.keep(text, source: file.place.source, rank: file.place.rank)
            texts.append(text)
            state.book(text, file.input)
        }
        for source in pipeline.sources.indices {
            let pages = partial.files.filter { $0.place.source == source }.compactMap(\.page)
            if !pages.isEmpty, let problem = PageSequence.problems(pages).first { throw problem }
        }
        if let whole {
            try ShardDedupe.restoreWhole(partial, whole, texts: texts, into: state.store(whole))
        }
        for segment in partial.segments where segment.run < 0 && segment.losers == nil && segment.collection != whole {
            let width = state.schemas[segment.collection]?.fields.count ?? 0
            let store = state.store(segment.collection)
            for record in try RecordCodec(sources: [texts[segment.file]]).decodeAll(
                segment.bytes, count: segment.count, width: width)
            {
                store.append(record)
            }
        }
        var rejects: [Rejection] = []
        var warnings: [Warning] = []
        // The partial's file numbers, as this run numbered the files.
        let numbers = texts.map(\.fileNumber)
        for var entry in partial.entries {
            entry.findings = entry.findings.map { $0.inFiles(numbers) }
            if entry.isReject {
                let record = entry.record.map { bytes in
                    RecordCodec(sources: [texts[entry.recordFile]]).decodeAll(
                        bytes, count: 1, width: state.schemas[entry.collection]?.fields.count ?? 0)[0]
                }
                // The phase, for the findings the finish adds to a step the shards began
                // (`ShardUnique`) to take their place among these.
                rejects.append(
                    Rejection(
                        collection: entry.collection, record: record, id: entry.id, findings: entry.findings,
                        step: entry.step, place: EntryPlace(phase: entry.phase)))
            } else {
                warnings.append(
                    Warning(
                        collection: entry.collection, id: entry.id, finding: entry.findings[0], step: entry.step,
                        place: EntryPlace(phase: entry.phase)))
            }
        }
        state.restore(
            rejects: rejects, warnings: warnings, stepStats: partial.stats, ingested: partial.ingested,
            appendedIn: partial.appendedIn, appendedOut: partial.appendedOut,
            incomplete: partial.incomplete.map(\.entry))
        return texts
    }
}

extension Location {
    /// The location with its file renumbered by `numbers` (a file's number in a partial,
    /// in merged partials, in the run that finishes them).
    func inFiles(_ numbers: [Int]) -> Location {
        var location = self
        if fileNumber >= 0, fileNumber < numbers.count { location.fileNumber = numbers[fileNumber] }
        return location
    }
}

extension Finding {
    func inFiles(_ numbers: [Int]) -> Finding {
        var finding = self
        finding.location = location?.inFiles(numbers)
        return finding
    }
}

extension PageMetadata {
    func inFiles(_ numbers: [Int]) -> PageMetadata {
        PageMetadata(file: file, number: number, count: count, location: location.inFiles(numbers))
    }
}
