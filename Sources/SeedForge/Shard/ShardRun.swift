import Foundation
import Logging

/// Sharded runs: a shard reads its share of the inputs, runs the steps that work record by
/// record and writes a partial (`Partial`); merging the partials of all shards and
/// finishing gives the dataset a plain run writes, byte for byte.
public enum ShardRun {
    /// What a shard or a merge wrote.
    public struct Outcome: Sendable {
        public let path: String
        public let covers: [Int]
        public let shards: Int
        public let records: Int
        public let files: Int

        public var summaryLine: String {
            let which =
                covers.count == 1 ? "shard \(covers[0])/\(shards)" : "shards \(Outcome.ranges(covers)) of \(shards)"
            return "\(which): \(records) records from \(files) files in \(path)"
        }

        static func ranges(_ numbers: [Int]) -> String {
            var parts: [String] = []
            var start = 0
            while start < numbers.count {
                var end = start
                while end + 1 < numbers.count, numbers[end + 1] == numbers[end] + 1 { end += 1 }
                parts.append(end == start ? "\(numbers[start])" : "\(numbers[start])-\(numbers[end])")
                start = end + 1
            }
            return parts.joined(separator: ",")
        }
    }

    /// Runs `shard` of the pipeline and writes its partial to the folder `partial`.
    public static func run(
        _ pipeline: Pipeline, shard: Shard, partial path: String, options: RunOptions
    ) throws
        -> Outcome
    {
        try Partial.checkTarget(path)
        var options = options
        options.shard = shard
        options.writeOutputs = true
        var logger = options.logger
        logger[metadataKey: "dataset"] = "\(pipeline.name)"
        let state = RunState(
            schemas: pipeline.schemas, threads: Threads(options.threads),
            memoryLimit: options.memoryLimit ?? pipeline.limits.maxMemory)
        defer { state.spill.remove() }
        state.progress = options.progress
        defer { options.progress?.finish() }
        try Ingestion.run(
            pipeline, state: state, options: options, known: KnownInputs(baseDirectory: pipeline.baseDirectory),
            logger: logger)
        try state.spill.check()
        let split = ShardPlan.split(pipeline)
        // A last validate block with a rule that compares records is begun, not run.
        let begun = ShardUnique.block(pipeline, split: split)
        _ = try StepRunner.run(pipeline, state: state, logger: logger, steps: 0..<(begun?.lowerBound ?? split))
        let unsettled = try begun.map { try ShardUnique.begin(pipeline, block: $0, state: state, logger: logger) }
        try state.spill.check()
        let partial = try make(pipeline, shard: shard, split: split, state: state, unsettled: unsettled ?? [:])
        try partial.write(to: path)
        logger.info("shard \(shard): \(split) of \(pipeline.steps.count) steps run, partial written to \(path)")
        return Outcome(
            path: path, covers: partial.covers, shards: shard.count,
            records: partial.segments.reduce(0) { $0 + $1.count }, files: partial.files.count)
    }

    static func identity(_ pipeline: Pipeline, shards: Int, split: Int, splitBytes: Int) -> Partial.Identity {
        Partial.Identity(
            dataset: pipeline.name, pipelineFile: URL(fileURLWithPath: pipeline.file).standardizedFileURL.path,
            pipelineSHA256: pipeline.fileSHA256, build: buildIdentity, inputs: ShardPlan.inputFingerprint(pipeline),
            shards: shards, split: split, splitBytes: splitBytes, shared: ShardPlan.sharedSources(pipeline))
    }

    /// The seedforge version and what names the running executable's build: partials of
    /// another build may differ and are refused. The linker's build ID when it wrote one
    /// (read from memory: hashing the 107 MB statically linked executable took 0.12 s of
    /// every shard's start), else the SHA-256 of the executable.
    static let buildIdentity: String = {
        if let linked = SeedForgeVersion.linkedBuildID { return "\(SeedForgeVersion.current)+\(linked)" }
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let digest = (try? InputFile.read(executable, maxBytes: Int.max).sha256) ?? "unknown"
        return "\(SeedForgeVersion.current)+\(digest.prefix(16))"
    }()

    /// The partial of a shard's state.
    /// `unsettled`: what a validate pass the shard began found on its records, by
    /// collection and position (`ShardUnique.begin`).
    static func make(
        _ pipeline: Pipeline, shard: Shard, split: Int, state: RunState,
        unsettled: [CollectionID: ShardUnique.Begun] = [:]
    ) throws
        -> Partial
    {
        // Sources every shard read whole are reported by shard 0 alone: the others leave
        // out their files, records, rejects, warnings and counts.
        let sharedSources = Set(ShardPlan.sharedSources(pipeline))
        let echoed: Set<CollectionID> =
            shard.index == 0 ? [] : Set(sharedSources.map { pipeline.sources[$0].collection })
        // Files numbered in the pipeline's order (source, then place among its files).
        let table = state.inputFiles.entries
        let order = table.indices.filter { shard.index == 0 || !sharedSources.contains(table[$0].place.source) }
            .sorted { table[$0].place < table[$1].place }
        var numberInPartial = [Int](repeating: -1, count: table.count)
        for (position, number) in order.enumerated() { numberInPartial[number] = position }
        var pages: [Int: PageMetadata] = [:]
        for list in state.pagesBySource.values { for page in list { pages[page.fileNumber] = page } }
        var files: [Partial.File] = []
        for number in order {
            let text = table[number].text
            guard let input = table[number].input else {
                throw InternalFailure("no manifest entry for \(text.displayPath)")
            }
            let page = pages[number]?.inFiles(numberInPartial)
            files.append(
                Partial.File(
                    place: table[number].place, absolutePath: text.absolutePath ?? text.displayPath,
                    displayPath: text.displayPath, pageNumber: text.pageNumber, sourceRoot: text.sourceRoot,
                    recordsPointer: text.recordsPointer, recordKeys: text.recordKeys,
                    fieldSelectors: (text.layout as? HTMLLayout)?.selectors, cellLayout: text.layout as? CSVLayout,
                    page: page, input: input))
        }
        func file(of text: SourceText) -> Int { state.inputFiles.number(of: text).map { numberInPartial[$0] } ?? -1 }
        var entries: [Partial.Entry] = []
        // What the steps counted of the entries left out, by phase.
        var leftOut: [Int: (rejected: Int, warnings: Int)] = [:]
        for rejection in state.rejects {
            let place = rejection.place
            if echoed.contains(rejection.collection) {
                leftOut[place.phase, default: (0, 0)].rejected += 1
                continue
            }
            var bytes: [UInt8]?
            if let record = rejection.record {
                bytes = []
                RecordCodec(sources: [record.origin.source]).encode(record, into: &bytes!)
            }
            entries.append(
                Partial.Entry(
                    phase: place.phase, file: place.file < 0 ? -1 : numberInPartial[place.file],
                    sequence: place.sequence, isReject: true, collection: rejection.collection, step: rejection.step,
                    id: rejection.id, findings: rejection.findings.map { $0.inFiles(numberInPartial) }, record: bytes,
                    recordFile: rejection.record.map { file(of: $0.origin.source) } ?? -1))
        }
        for warning in state.warnings {
            let place = warning.place
            if echoed.contains(warning.collection) {
                leftOut[place.phase, default: (0, 0)].warnings += 1
                continue
            }
            entries.append(
                Partial.Entry(
                    phase: place.phase, file: place.file < 0 ? -1 : numberInPartial[place.file],
                    sequence: place.sequence, isReject: false, collection: warning.collection, step: warning.step,
                    id: warning.id, findings: [warning.finding.inFiles(numberInPartial)], record: nil, recordFile: -1))
        }
        // Records in segments of one file each, in the collection's order.
        var segments: [Partial.Segment] = []
        var pending: [Partial.Pending] = []
        var sequence = 0
        let dedupe = ShardDedupe.leading(pipeline, split: split)
        let dedupeSort = ShardDedupeSort.following(pipeline, split: split)
        for collection in pipeline.collections where !echoed.contains(collection) {
            // A dedupe begun in the shard: its losers go apart, with their places.
            var local = dedupe.flatMap { dedupe in
                dedupe.collection == collection
                    ? ShardDedupe.LocalLosers(dedupe, records: state.records(collection), threads: state.threads) : nil
            }
            // The survivors, when a sort follows the dedupe: the shard sorts them too, unless
            // its records spilled past the limit (read back here, they would all be held
            // again for the sort; the finish then sorts them as a plain run does).
            let ranking = local != nil && dedupeSort != nil && !state.store(collection).isSpilled
            var survivors: [Record] = []
            let firstSegment = segments.count
            var position = 0
            // A file's records are together: its number and count are looked up once a file.
            var indexInFile: [ObjectIdentifier: Int] = [:]
            var last: (source: SourceText, file: Int, index: Int)?
            var current: (source: SourceText, records: [Record], keys: [UInt8])?
            func close() {
                guard let open = current, !open.records.isEmpty else { return }
                var bytes: [UInt8] = []
                let codec = RecordCodec(sources: [open.source])
                for record in open.records { codec.encode(record, into: &bytes) }
                sequence += 1
                segments.append(
                    Partial.Segment(
                        collection: collection, file: file(of: open.source), sequence: sequence,
                        count: open.records.count, bytes: SegmentBytes(bytes),
                        keys: local == nil && begun == nil ? nil : SegmentBytes(open.keys)))
                current = nil
            }
            let begun = unsettled[collection]
            let found = begun?.found
            try state.forEachRecord(collection) { record in
                if local != nil || begun != nil {
                    if last?.source !== record.origin.source {
                        if let last { indexInFile[ObjectIdentifier(last.source)] = last.index }
                        let source = record.origin.source
                        last = (source, file(of: source), indexInFile[ObjectIdentifier(source), default: 0])
                    }
                    let place = Partial.Place(file: last!.file, index: last!.index)
                    last!.index += 1
                    position += 1
                    if let what = found?[position - 1] {
                        pending.append(
                            Partial.Pending(
                                collection: collection, place: place, steps: what.steps,
                                findings: what.findings.map { $0.inFiles(numberInPartial) }))
                    }
                    if local != nil, local!.take(record, at: position - 1, place: place) { return }
                }
                defer {
                    local?.appendKey(at: position - 1, to: &current!.keys)
                    begun?.appendKeys(at: position - 1, to: &current!.keys)
                }
                if let open = current, open.source !== record.origin.source || open.records.count >= 65_536 {
                    close()
                }
                if current == nil { current = (record.origin.source, [], []) }
                current!.records.append(record)
                if ranking { survivors.append(record) }
            }
            close()
            if ranking, let sort = dedupeSort {
                try ShardDedupeSort.rank(
                    &segments[firstSegment...], records: survivors, sort: sort, shard: shard.index,
                    threads: state.threads)
            }
            if let local {
                segments += local.segments(
                    of: collection, source: { number in table[order[number]].text }, sequence: &sequence)
            }
        }
        var incomplete: [(source: Int, entry: IncompleteSource)] = []
        for entry in state.incomplete where !echoed.contains(entry.collection) {
            let source = files.first { $0.input.file == entry.page && $0.input.collection == entry.collection }
            incomplete.append((source?.place.source ?? -1, entry))
        }
        // A group-stats begun in the shard: its groups summarised.
        var groups: [(key: ByteKey, summary: GroupSummary)] = []
        var groupsComplete = false
        var picksLeast: [Bool] = []
        if let stats = ShardGroupStats.leading(pipeline, split: split) {
            picksLeast = stats.picksLeast
            if echoed.contains(stats.collection) {
                groupsComplete = true
            } else if let summaries = try ShardGroupStats.summarize(stats, state: state, file: file(of:)) {
                (groups, groupsComplete) = (summaries, true)
            }
        }
        // A rating-summary begun in the shard: its reviews' ratings summed by key.
        var ratings: [Partial.Rating] = []
        var ratingsComplete = false
        if let step = ShardRatingSummary.leading(pipeline, split: split) {
            if echoed.contains(step.reviews) {
                ratingsComplete = true
            } else if let totals = try ShardRatingSummary.summarize(step, state: state) {
                (ratings, ratingsComplete) = (totals, true)
            }
        }
        let merged = Partial(
            identity: identity(pipeline, shards: shard.count, split: split, splitBytes: shard.splitBytes),
            covers: [shard.index], files: files,
            stats: try stats(pipeline, split: split, state: state, echoed: echoed, leftOut: leftOut),
            ingested: state.ingested.filter { !echoed.contains($0.key) },
            appendedIn: state.appendedIn.filter { !echoed.contains($0.key) },
            appendedOut: state.appendedOut.filter { !echoed.contains($0.key) }, incomplete: incomplete,
            entries: entries, pending: pending, groups: groups, groupsComplete: groupsComplete,
            picksLeast: picksLeast, ratings: ratings, ratingsComplete: ratingsComplete, segments: segments)
        var partial = merged.sorted()
        let sorts = ShardSort.leading(pipeline, split: split)
        if !sorts.isEmpty {
            try ShardSort.sortRuns(
                &partial, sorts: sorts, texts: order.map { table[$0].text }, schemas: state.schemas,
                shard: shard.index, threads: state.threads)
        }
        return partial
    }

    /// The shard's step counts without what it did to collections another shard reports
    /// (`echoed`): their steps count nothing, and a step on the shard's own records that
    /// also found something in such a collection (`lookup` warning of a repeated key in its
    /// reference data) counts without those findings (`leftOut`, by phase).
    static func stats(
        _ pipeline: Pipeline, split: Int, state: RunState, echoed: Set<CollectionID>,
        leftOut: [Int: (rejected: Int, warnings: Int)]
    ) throws -> [StepStat] {
        var stats = state.stepStats
        guard !echoed.isEmpty else { return stats }
        for (position, stat) in stats.enumerated() where echoed.contains(stat.collection) {
            stats[position] = StepStat(
                label: stat.label, stage: stat.stage, collection: stat.collection, recordsIn: 0, recordsOut: 0,
                rejected: 0, duplicates: 0, warnings: 0, seconds: stat.seconds, changed: stat.changed.map { _ in 0 })
        }
        // Ingest gives one statistic per source, then every step one, in order.
        let first = stats.count - split
        for (phase, counts) in leftOut where phase > 0 {
            let step = phase - 1
            guard case .step(let planned, _, _) = pipeline.steps[step], !echoed.contains(planned.collection) else {
                continue
            }
            guard first >= 0, stats[first + step].label == pipeline.steps[step].label else {
                throw InternalFailure("the statistics of shard steps are not one a step")
            }
            let stat = stats[first + step]
            stats[first + step] = StepStat(
                label: stat.label, stage: stat.stage, collection: stat.collection, recordsIn: stat.recordsIn,
                recordsOut: stat.recordsOut, rejected: stat.rejected - counts.rejected,
                duplicates: stat.duplicates, warnings: stat.warnings - counts.warnings, seconds: stat.seconds,
                changed: stat.changed)
        }
        return stats
    }
}
