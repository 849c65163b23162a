import Foundation

/// What a sharded run (`seedforge run --shard I/N --partial DIR`) leaves for the merge: the
/// records of its share after the steps that work record by record, every reject and
/// warning with its place in a plain run's order, the per-step counts, and each input
/// file's entry for the manifest. Partials of one pipeline, input set and seedforge build
/// merge into one (`seedforge merge`), in any grouping and order, and the last merge
/// finishes the run: the remaining steps, then the outputs, byte for byte those of a
/// plain run.
///
/// On disk a partial is a folder: `partial.json` (what it is: pipeline, build, input set,
/// shards covered, counts, and the time each step took) and `partial.bin` (everything
/// else, in the record codec's varints, followed by the SHA-256 of those bytes): a task run
/// again writes the same `partial.bin`.
struct Partial {
    /// What must agree between partials that merge.
    struct Identity: Equatable {
        var dataset: String
        /// The definition's path when the shard ran (the finish reads it again) and hash.
        var pipelineFile: String
        var pipelineSHA256: String
        var build: String
        var inputs: String
        var shards: Int
        /// The number of leading steps the shards ran.
        var split: Int
        /// Files this large (bytes) were split into byte ranges, one per shard.
        var splitBytes: Int
        /// The sources every shard read whole (reference data that `nearest` and `lookup`
        /// search in the shards), by number: their files, records, rejects and warnings
        /// are in shard 0's partial only.
        var shared: [Int]
    }

    /// An input file a shard read: where it stands, what locations in it need, and its
    /// manifest entry.
    struct File {
        var place: SourceFile
        var absolutePath: String
        var displayPath: String
        var pageNumber: Int
        var sourceRoot: String?
        var recordsPointer: String?
        var recordKeys: [String]?
        var fieldSelectors: [String: String]?
        var cellLayout: CSVLayout?
        /// What the file says of its place in a paginated dump.
        var page: PageMetadata?
        var input: Manifest.Input
    }

    /// A reject or a warning (`record` only for rejects of a record), with its place.
    struct Entry {
        var phase: Int
        /// A number in `files`, -1 for none.
        var file: Int
        var sequence: Int
        var isReject: Bool
        var collection: CollectionID
        var step: String
        var id: Value?
        var findings: [Finding]
        /// The rejected record, encoded against its own file (`recordFile`).
        var record: [UInt8]?
        var recordFile: Int
    }

    /// Consecutive records of one collection from one file, encoded against that file.
    struct Segment {
        var collection: CollectionID
        var file: Int
        var sequence: Int
        var count: Int
        var bytes: SegmentBytes
        /// For a collection sorted in the shards (`ShardSort`), the shard whose sorted run
        /// the segment belongs to (`sequence` orders its segments); -1 otherwise.
        var run = -1
        /// For the losers of a dedupe begun in the shards (`ShardDedupe`), each record's
        /// place and its local winner's; nil for any other records.
        var losers: [Loser]? = nil
        /// For the survivors of a dedupe begun in the shards, each record's key hash
        /// (`Dedupe.keyHashes`): a byte that says whether it has a key, then the hash's 8
        /// bytes, little-endian (zeros without a key); for the records of a validate pass
        /// with a `unique` rule begun in the shards, such 9 bytes for each of its `unique`
        /// rules (`ShardUnique.Begun`); nil for any other records.
        var keys: SegmentBytes? = nil
        /// For the survivors of a dedupe begun in the shards that a sort follows
        /// (`ShardDedupeSort`): the shard whose survivors were sorted, and each record's
        /// place in that shard's sorted order (4 bytes, little-endian); nil otherwise.
        var ranked: (shard: Int, ranks: SegmentBytes)? = nil
    }

    /// A record's place: its file's number and its index among that file's records of its
    /// collection, as ingest and the shard's record-by-record steps left them.
    struct Place: Hashable {
        var file: Int
        var index: Int
    }

    /// What the record-by-record rules of a validate pass with a rule that compares records
    /// (`unique`) found on one record, which the shard left unsettled (`ShardUnique`): the
    /// record's place, and each finding with the number of its step in the pass.
    struct Pending {
        var collection: CollectionID
        var place: Place
        var steps: [Int]
        var findings: [Finding]
    }

    /// The reviews of one key of a `rating-summary` begun in the shards
    /// (`ShardRatingSummary`): the key they name and their ratings' order-free total.
    struct Rating {
        var key: Value
        var total: NumberTotal
    }

    /// A record a shard's dedupe removed: its index in its file, and its local winner.
    struct Loser: Equatable {
        var index: Int
        var winner: Place
    }

    var identity: Identity
    /// The shards whose work this partial holds.
    var covers: [Int]
    var files: [File]
    /// Per step, in the pipeline's order: ingest per source, then the shards' steps.
    var stats: [StepStat]
    var ingested: [CollectionID: Int]
    var appendedIn: [CollectionID: Int]
    var appendedOut: [CollectionID: Int]
    /// Sources read in part, by the number of their source.
    var incomplete: [(source: Int, entry: IncompleteSource)]
    var entries: [Entry]
    /// The unsettled findings of a validate pass the finish completes (`ShardUnique`), by
    /// collection, then by the place of the record in a plain run's order.
    var pending: [Pending] = []
    /// The summaries of the `group-stats` the finish starts with, begun in the shards
    /// (`ShardGroupStats`): one summary of each group, of the records of every shard
    /// covered, in order of group key.
    var groups: [(key: ByteKey, summary: GroupSummary)] = []
    /// Whether every shard covered summarised its groups and their sums stay order-free
    /// added up (else the step is left whole to the finish).
    var groupsComplete = false
    /// For each metric of that group-stats, whether its `picks` keep the least value
    /// (`min`), to merge summaries without the pipeline (`GroupStats.picksLeast`).
    var picksLeast: [Bool] = []
    /// The totals of the `rating-summary` the finish starts with, begun in the shards
    /// (`ShardRatingSummary`): one a key, of the reviews of every shard covered.
    var ratings: [Rating] = []
    /// Whether every shard covered summed its reviews and the sums stay order-free added up.
    var ratingsComplete = false
    var segments: [Segment]

    static let jsonFile = "partial.json"
    static let binaryFile = "partial.bin"
    /// Format 2: a location names its file by its number in `files` too. Format 3: the
    /// sources every shard reads whole (`Identity.shared`), and segments of sorted runs
    /// (`Segment.run`). Format 4: the losers of a dedupe begun in the shards
    /// (`Segment.losers`), and its survivors' key hashes (`Segment.keys`). Format 5: the
    /// unsettled findings of a validate pass with a `unique` rule (`pending`), and the
    /// summaries of a `group-stats` begun in the shards (`groups`). Format 6: one summary a
    /// group in merged partials, with the metrics' `picksLeast`, the totals of a
    /// `rating-summary` begun in the shards (`ratings`), the key hashes of a `unique` rule
    /// begun in the shards (`Segment.keys`), and the survivors' ranks of a sort begun after
    /// a dedupe begun in the shards (`Segment.ranked`).
    static let format = 6
}

// MARK: - Writing and reading

extension Partial {
    /// Writes the partial as the folder `path`, replacing one there: written beside it
    /// first, then renamed, so a retried task leaves one whole partial.
    func write(to path: String) throws {
        let target = URL(fileURLWithPath: path).standardizedFileURL
        try Self.checkTarget(path)
        let parent = target.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let staging = parent.appendingPathComponent(".\(target.lastPathComponent).\(getpid()).tmp")
        try? FileManager.default.removeItem(at: staging)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        do {
            // The body, then its SHA-256 (hex): a partial cut short or damaged is refused.
            // Written as it is encoded: the records' segments go from where they are (made
            // by this shard, or read a segment at a time from a partial being merged) to the
            // file without being gathered in memory.
            let binary = staging.appendingPathComponent(Self.binaryFile).path
            let file = StagedFile(fd: try OutputDirectory.create(binary, name: Self.binaryFile), path: binary)
            try encodeBinary(into: file)
            try file.finishSealed()
            try Data(describe()).write(to: staging.appendingPathComponent(Self.jsonFile))
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.moveItem(at: staging, to: target)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
    }

    /// Refuses a `--partial` folder that holds anything but a partial: only a partial, or
    /// an empty folder, is replaced.
    static func checkTarget(_ path: String) throws {
        let target = URL(fileURLWithPath: path).standardizedFileURL
        guard let present = try? FileManager.default.contentsOfDirectory(atPath: target.path),
            !Set(present).isSubset(of: [binaryFile, jsonFile])
        else { return }
        throw ShardError(
            "\(path) holds other files than a partial's (\(present.sorted().prefix(3).joined(separator: ", "))): give --partial a new or empty folder"
        )
    }

    /// `partial.json`: what the partial is, with its counts.
    func describe() -> [UInt8] {
        var root = JSONObject()
        root.appendUnchecked("format", .int(Int64(Self.format)))
        root.appendUnchecked("dataset", .string(identity.dataset))
        root.appendUnchecked(
            "pipeline",
            .object(
                JSONObject([
                    ("file", .string(identity.pipelineFile)), ("sha256", .string(identity.pipelineSHA256)),
                ])))
        root.appendUnchecked("seedforge", .string(identity.build))
        root.appendUnchecked("inputs", .string(identity.inputs))
        root.appendUnchecked("shards", .int(Int64(identity.shards)))
        root.appendUnchecked("covers", .array(covers.map { .int(Int64($0)) }))
        root.appendUnchecked("stepsRun", .int(Int64(identity.split)))
        root.appendUnchecked("files", .int(Int64(files.count)))
        var records = JSONObject()
        for collection in Set(segments.map(\.collection)).sorted() {
            let count = segments.lazy.filter { $0.collection == collection }.reduce(0) { $0 + $1.count }
            records.appendUnchecked(collection.name, .int(Int64(count)))
        }
        root.appendUnchecked("records", .object(records))
        // The time each step took (nanoseconds, summed over the shards): here, not in
        // partial.bin, whose bytes a task run again gives again.
        root.appendUnchecked("stepNanoseconds", .array(stats.map { .int(Int64(StepStat.nanoseconds($0.seconds))) }))
        root.appendUnchecked("rejects", .int(Int64(entries.lazy.filter(\.isReject).count)))
        root.appendUnchecked("warnings", .int(Int64(entries.lazy.filter { !$0.isReject }.count)))
        var writer = JSONWriter()
        writer.writePretty(.object(root))
        writer.append(byte: 0x0A)
        return writer.bytes
    }

    /// Reads the partial folder `path`; a folder that is not one is a `ShardError`. The
    /// file is mapped while its seal is checked and all but its records are decoded; its
    /// records' segments are read again from the file when they are used (`PartialFile`).
    static func read(_ path: String) throws -> Partial {
        let file = URL(fileURLWithPath: path).appendingPathComponent(binaryFile)
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw ShardError(
                "\(path) is not a partial: it has no \(binaryFile) (make one with `seedforge run --shard`)")
        }
        let bytes = try FileBytes.read(path: file.path)
        guard let stamp = bytes.stamp else {
            throw ShardError(
                "\(file.path) is not a regular file: a partial is a folder made by `seedforge run --shard`")
        }
        let bodyCount = bytes.count - 64
        guard bodyCount >= 0,
            InputFile.hash(bytes, count: bodyCount)
                == String(decoding: UnsafeBufferPointer(rebasing: bytes.buffer[bodyCount...]), as: UTF8.self)
        else {
            throw ShardError("\(file.path) is cut short or damaged; run its shard (or merge) again")
        }
        var partial = try {
            var reader = PartialReader(UnsafeBufferPointer(rebasing: bytes.buffer[..<bodyCount]), path: path)
            return try decode(&reader, file: PartialFile(path: file.path, stamp: stamp))
        }()
        // Step times, for the manifest's run section only: absent or unreadable, they are 0.
        let description = URL(fileURLWithPath: path).appendingPathComponent(jsonFile)
        if let data = FileManager.default.contents(atPath: description.path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let times = object["stepNanoseconds"] as? [Int], times.count == partial.stats.count
        {
            for (position, time) in times.enumerated() { partial.stats[position].seconds = Double(time) / 1e9 }
        }
        return partial
    }
}

/// Bytes of a partial being written: the record codec's varints, text and values.
struct PartialWriter {
    var bytes: [UInt8] = []

    mutating func int(_ value: Int) {
        RecordCodec.appendVarint(UInt64(bitPattern: Int64(value) << 1 ^ Int64(value) >> 63), to: &bytes)
    }
    mutating func text(_ value: String) { RecordCodec.appendText(value, to: &bytes) }
    mutating func optionalText(_ value: String?) {
        bool(value != nil)
        if let value { text(value) }
    }
    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }
    mutating func value(_ value: Value?) {
        bool(value != nil)
        if let value { RecordCodec.encode(value, into: &bytes) }
    }
    mutating func blob(_ value: [UInt8]) {
        int(value.count)
        bytes += value
    }
    mutating func location(_ location: Location?) {
        bool(location != nil)
        guard let location else { return }
        text(location.file)
        int(location.line)
        int(location.column)
        text(location.pointer)
        int(location.fileNumber)
    }
    mutating func exact(_ number: ExactNumber) {
        int(Int(truncatingIfNeeded: Int64(truncatingIfNeeded: number.significand >> 64)))
        int(Int(Int64(bitPattern: UInt64(truncatingIfNeeded: number.significand))))
        int(number.exponent)
    }
    /// An order-free total (`NumberTotal.isOrderFree`): its count, exact sum and sum of
    /// magnitudes.
    mutating func total(_ total: NumberTotal) {
        int(total.count)
        exact(total.exact ?? .zero)
        exact(total.absolute ?? .zero)
    }
    mutating func pick(_ pick: GroupSummary.Pick) {
        blob(pick.key.bytes)
        value(pick.value)
        int(pick.file)
        int(pick.count)
    }
    /// A group's summary; only order-free totals (`NumberTotal.isOrderFree`) are written.
    mutating func summary(_ key: ByteKey, _ summary: GroupSummary) {
        blob(key.bytes)
        int(summary.file)
        int(summary.values.count)
        for value in summary.values { self.value(value) }
        int(summary.count)
        int(summary.counts.count)
        for number in summary.counts.indices {
            int(summary.counts[number])
            total(summary.totals[number])
            bool(summary.picks[number] != nil)
            if let chosen = summary.picks[number] { pick(chosen) }
            int(summary.modes[number].count)
            for candidate in summary.modes[number].values.sorted(by: { $0.key < $1.key }) { pick(candidate) }
        }
    }
    mutating func finding(_ finding: Finding) {
        text(finding.rule.rawValue)
        bool(finding.severity == .warning)
        text(finding.message)
        location(finding.location)
        optionalText(finding.field)
        value(finding.value)
    }
}

/// Reads what `PartialWriter` wrote; running out of bytes is an error naming the partial.
struct PartialReader {
    var reader: RecordCodec.Reader
    let path: String

    init(_ buffer: UnsafeBufferPointer<UInt8>, path: String) {
        reader = RecordCodec.Reader(buffer)
        self.path = path
    }

    mutating func need(_ count: Int) throws {
        guard count >= 0, reader.position + count <= reader.bytes.count else {
            throw ShardError("\(path)/\(Partial.binaryFile) is cut short or damaged; run its shard again")
        }
    }
    mutating func int() throws -> Int {
        try need(1)
        let zigzag = reader.varint()
        return Int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
    }
    mutating func text() throws -> String {
        let start = reader.position
        try need(1)
        let count = Int(reader.varint())
        try need(count)
        reader.position = start
        return reader.text()
    }
    mutating func optionalText() throws -> String? { try bool() ? try text() : nil }
    mutating func bool() throws -> Bool {
        try need(1)
        defer { reader.position += 1 }
        return reader.bytes[reader.position] != 0
    }
    mutating func value() throws -> Value? {
        guard try bool() else { return nil }
        try need(1)
        return reader.value()
    }
    mutating func blob() throws -> [UInt8] {
        Array(reader.bytes[try window()])
    }
    /// Where the next blob's bytes are, without copying them.
    mutating func window() throws -> Range<Int> {
        let count = try int()
        try need(count)
        defer { reader.position += count }
        return reader.position..<reader.position + count
    }
    mutating func location() throws -> Location? {
        guard try bool() else { return nil }
        return Location(
            file: try text(), line: try int(), column: try int(), pointer: try text(), fileNumber: try int())
    }
    mutating func exact() throws -> ExactNumber {
        let high = Int128(Int64(try int()))
        let low = Int128(UInt64(bitPattern: Int64(try int())))
        return ExactNumber(significand: high << 64 | low, exponent: try int())
    }
    mutating func total() throws -> NumberTotal {
        NumberTotal(count: try int(), exact: try exact(), absolute: try exact())
    }
    mutating func pick() throws -> GroupSummary.Pick {
        GroupSummary.Pick(
            key: ByteKey(bytes: try blob()), value: try value() ?? .null, file: try int(), count: try int())
    }
    mutating func summary() throws -> (key: ByteKey, summary: GroupSummary) {
        let key = ByteKey(bytes: try blob())
        let file = try int()
        let values = try (0..<int()).map { _ in try value() ?? .null }
        let count = try int()
        let metrics = try int()
        try need(metrics)
        var summary = GroupSummary(values: values, file: file, metrics: metrics)
        summary.count = count
        for number in 0..<metrics {
            summary.counts[number] = try int()
            summary.totals[number] = try total()
            if try bool() { summary.picks[number] = try pick() }
            for _ in 0..<(try int()) {
                let candidate = try pick()
                summary.modes[number][candidate.key] = candidate
            }
        }
        return (key, summary)
    }
    mutating func finding() throws -> Finding {
        Finding(
            rule: RuleCode(rawValue: try text()), severity: try bool() ? .warning : .error, message: try text(),
            location: try location(),
            field: try optionalText(), value: try value())
    }
}

extension Partial {
    /// Writes the partial's bytes to `file`: all but the records' segments gathered in
    /// memory, each segment written from where it is.
    func encodeBinary(into file: StagedFile) throws {
        var out = PartialWriter()
        out.int(Self.format)
        for text in [
            identity.dataset, identity.pipelineFile, identity.pipelineSHA256, identity.build, identity.inputs,
        ] {
            out.text(text)
        }
        out.int(identity.shards)
        out.int(identity.split)
        out.int(identity.splitBytes)
        out.int(identity.shared.count)
        for source in identity.shared { out.int(source) }
        out.int(covers.count)
        for shard in covers { out.int(shard) }
        out.int(files.count)
        for file in files {
            out.int(file.place.source)
            out.int(file.place.rank)
            out.int(file.place.part)
            out.text(file.absolutePath)
            out.text(file.displayPath)
            out.int(file.pageNumber)
            out.optionalText(file.sourceRoot)
            out.optionalText(file.recordsPointer)
            out.bool(file.recordKeys != nil)
            if let keys = file.recordKeys {
                out.int(keys.count)
                for key in keys { out.text(key) }
            }
            out.bool(file.fieldSelectors != nil)
            if let selectors = file.fieldSelectors {
                out.int(selectors.count)
                for (field, selector) in selectors.sorted(by: { $0.key < $1.key }) {
                    out.text(field)
                    out.text(selector)
                }
            }
            out.bool(file.cellLayout != nil)
            if let layout = file.cellLayout {
                out.int(Int(layout.dialect.delimiter))
                out.int(layout.dialect.quote.map(Int.init) ?? -1)
                out.int(layout.dialect.comment.map(Int.init) ?? -1)
                out.int(layout.columns.count)
                for (path, column) in layout.columns.sorted(by: { $0.value < $1.value }) {
                    out.text(path.description)
                    out.int(column)
                }
            }
            out.bool(file.page != nil)
            if let page = file.page {
                out.text(page.file)
                out.int(page.number)
                out.int(page.count ?? -1)
                out.location(page.location)
            }
            let input = file.input
            out.text(input.collection.name)
            out.text(input.file)
            out.text(input.sha256)
            out.int(input.bytes)
            out.int(input.records)
            out.bool(input.stamp != nil)
            if let stamp = input.stamp {
                out.int(stamp.bytes)
                out.int(Int(truncatingIfNeeded: stamp.inode))
                out.int(Int(stamp.modified))
                out.int(Int(stamp.changed))
            }
        }
        out.int(stats.count)
        for stat in stats {
            out.text(stat.label)
            out.text(stat.stage.rawValue)
            out.text(stat.collection.name)
            for count in [stat.recordsIn, stat.recordsOut, stat.rejected, stat.duplicates, stat.warnings] {
                out.int(count)
            }
            out.int(stat.changed ?? -1)
        }
        for counts in [ingested, appendedIn, appendedOut] {
            out.int(counts.count)
            for (collection, count) in counts.sorted(by: { $0.key < $1.key }) {
                out.text(collection.name)
                out.int(count)
            }
        }
        out.int(incomplete.count)
        for (source, entry) in incomplete {
            out.int(source)
            out.text(entry.collection.name)
            out.text(entry.page)
            out.text(entry.missing)
        }
        out.int(entries.count)
        for entry in entries {
            out.int(entry.phase)
            out.int(entry.file)
            out.int(entry.sequence)
            out.bool(entry.isReject)
            out.text(entry.collection.name)
            out.text(entry.step)
            out.value(entry.id)
            out.int(entry.findings.count)
            for finding in entry.findings { out.finding(finding) }
            out.bool(entry.record != nil)
            if let record = entry.record {
                out.int(entry.recordFile)
                out.blob(record)
            }
        }
        out.int(pending.count)
        for entry in pending {
            out.text(entry.collection.name)
            out.int(entry.place.file)
            out.int(entry.place.index)
            out.int(entry.findings.count)
            for (step, finding) in zip(entry.steps, entry.findings) {
                out.int(step)
                out.finding(finding)
            }
        }
        out.bool(groupsComplete)
        out.int(picksLeast.count)
        for least in picksLeast { out.bool(least) }
        out.int(groups.count)
        for (key, summary) in groups { out.summary(key, summary) }
        out.bool(ratingsComplete)
        out.int(ratings.count)
        for rating in ratings {
            out.value(rating.key)
            out.total(rating.total)
        }
        out.int(segments.count)
        for segment in segments {
            out.text(segment.collection.name)
            out.int(segment.file)
            out.int(segment.sequence)
            out.int(segment.count)
            out.int(segment.run)
            out.bool(segment.losers != nil)
            for loser in segment.losers ?? [] {
                out.int(loser.index)
                out.int(loser.winner.file)
                out.int(loser.winner.index)
            }
            out.bool(segment.keys != nil)
            if let keys = segment.keys {
                out.int(keys.count)
                try file.write(out.bytes)
                out.bytes.removeAll(keepingCapacity: true)
                try keys.withBuffer { try file.write($0) }
            }
            out.bool(segment.ranked != nil)
            if let (shard, ranks) = segment.ranked {
                out.int(shard)
                out.int(ranks.count)
                try file.write(out.bytes)
                out.bytes.removeAll(keepingCapacity: true)
                try ranks.withBuffer { try file.write($0) }
            }
            out.int(segment.bytes.count)
            try file.write(out.bytes)
            out.bytes.removeAll(keepingCapacity: true)
            try segment.bytes.withBuffer { try file.write($0) }
        }
        try file.write(out.bytes)
    }

    /// Reads a partial's bytes (`input`, `file`'s bytes but its seal): its segments are
    /// places in `file`, read when they are used.
    static func decode(_ input: inout PartialReader, file: PartialFile) throws -> Partial {
        let format = try input.int()
        guard format == Self.format else {
            throw ShardError(
                "\(input.path) is a partial of format \(format); this seedforge reads format \(Self.format): run its shards again with this build"
            )
        }
        let identity = Identity(
            dataset: try input.text(), pipelineFile: try input.text(), pipelineSHA256: try input.text(),
            build: try input.text(), inputs: try input.text(), shards: try input.int(), split: try input.int(),
            splitBytes: try input.int(), shared: try (0..<input.int()).map { _ in try input.int() })
        let covers = try (0..<input.int()).map { _ in try input.int() }
        var files: [File] = []
        for _ in 0..<(try input.int()) {
            let place = SourceFile(source: try input.int(), rank: try input.int(), part: try input.int())
            let absolutePath = try input.text()
            let displayPath = try input.text()
            let pageNumber = try input.int()
            let sourceRoot = try input.optionalText()
            let recordsPointer = try input.optionalText()
            let recordKeys = try input.bool() ? try (0..<input.int()).map { _ in try input.text() } : nil
            var selectors: [String: String]?
            if try input.bool() {
                selectors = [:]
                for _ in 0..<(try input.int()) { selectors![try input.text()] = try input.text() }
            }
            var layout: CSVLayout?
            if try input.bool() {
                let delimiter = UInt8(truncatingIfNeeded: try input.int())
                let quote = try input.int()
                let comment = try input.int()
                var columns: [FieldPath: Int] = [:]
                for _ in 0..<(try input.int()) {
                    let path = FieldPath(parsing: try input.text()) ?? FieldPath(components: [])
                    columns[path] = try input.int()
                }
                layout = CSVLayout(
                    dialect: CSVDialect(
                        delimiter: delimiter, quote: quote < 0 ? nil : UInt8(truncatingIfNeeded: quote),
                        comment: comment < 0 ? nil : UInt8(truncatingIfNeeded: comment)),
                    columns: columns)
            }
            var page: PageMetadata?
            if try input.bool() {
                let file = try input.text()
                let number = try input.int()
                let count = try input.int()
                let location = try input.location() ?? Location(file: file, line: 1, column: 1, pointer: "")
                page = PageMetadata(file: file, number: number, count: count < 0 ? nil : count, location: location)
            }
            let collection = CollectionID(try input.text())
            let datasetFile = try input.text()
            let sha256 = try input.text()
            let bytes = try input.int()
            let records = try input.int()
            var stamp: FileStamp?
            if try input.bool() {
                stamp = FileStamp(
                    bytes: try input.int(), inode: UInt64(truncatingIfNeeded: try input.int()),
                    modified: Int64(try input.int()), changed: Int64(try input.int()))
            }
            files.append(
                File(
                    place: place, absolutePath: absolutePath, displayPath: displayPath, pageNumber: pageNumber,
                    sourceRoot: sourceRoot, recordsPointer: recordsPointer, recordKeys: recordKeys,
                    fieldSelectors: selectors, cellLayout: layout, page: page,
                    input: Manifest.Input(
                        collection: collection, file: datasetFile, sha256: sha256, bytes: bytes, records: records,
                        stamp: stamp)))
        }
        var stats: [StepStat] = []
        for _ in 0..<(try input.int()) {
            let label = try input.text()
            let stageName = try input.text()
            guard let stage = Stage(rawValue: stageName) else {
                throw ShardError("\(input.path) names an unknown stage '\(stageName)'")
            }
            let collection = CollectionID(try input.text())
            let counts = try (0..<5).map { _ in try input.int() }
            let changed = try input.int()
            stats.append(
                StepStat(
                    label: label, stage: stage, collection: collection, recordsIn: counts[0], recordsOut: counts[1],
                    rejected: counts[2], duplicates: counts[3], warnings: counts[4], seconds: 0,
                    changed: changed < 0 ? nil : changed))
        }
        var counts: [[CollectionID: Int]] = []
        for _ in 0..<3 {
            var map: [CollectionID: Int] = [:]
            for _ in 0..<(try input.int()) { map[CollectionID(try input.text())] = try input.int() }
            counts.append(map)
        }
        var incomplete: [(source: Int, entry: IncompleteSource)] = []
        for _ in 0..<(try input.int()) {
            let source = try input.int()
            incomplete.append(
                (
                    source,
                    IncompleteSource(
                        collection: CollectionID(try input.text()), page: try input.text(), missing: try input.text())
                )
            )
        }
        var entries: [Entry] = []
        for _ in 0..<(try input.int()) {
            let phase = try input.int()
            let file = try input.int()
            let sequence = try input.int()
            let isReject = try input.bool()
            let collection = CollectionID(try input.text())
            let step = try input.text()
            let id = try input.value()
            let findings = try (0..<input.int()).map { _ in try input.finding() }
            var record: [UInt8]?
            var recordFile = -1
            if try input.bool() {
                recordFile = try input.int()
                record = try input.blob()
            }
            entries.append(
                Entry(
                    phase: phase, file: file, sequence: sequence, isReject: isReject, collection: collection,
                    step: step, id: id, findings: findings, record: record, recordFile: recordFile))
        }
        var pending: [Pending] = []
        for _ in 0..<(try input.int()) {
            var entry = Pending(
                collection: CollectionID(try input.text()), place: Place(file: try input.int(), index: try input.int()),
                steps: [], findings: [])
            for _ in 0..<(try input.int()) {
                entry.steps.append(try input.int())
                entry.findings.append(try input.finding())
            }
            pending.append(entry)
        }
        let groupsComplete = try input.bool()
        let picksLeast = try (0..<input.int()).map { _ in try input.bool() }
        let groups = try (0..<input.int()).map { _ in try input.summary() }
        let ratingsComplete = try input.bool()
        let ratings = try (0..<input.int()).map { _ in
            Rating(key: try input.value() ?? .null, total: try input.total())
        }
        var segments: [Segment] = []
        for _ in 0..<(try input.int()) {
            let (collection, fileNumber, sequence) = (CollectionID(try input.text()), try input.int(), try input.int())
            let (count, run) = (try input.int(), try input.int())
            var losers: [Loser]?
            if try input.bool() {
                try input.need(count)
                losers = try (0..<count).map { _ in
                    Loser(index: try input.int(), winner: Place(file: try input.int(), index: try input.int()))
                }
            }
            let keys = try input.bool() ? SegmentBytes(file, try input.window()) : nil
            let ranked = try input.bool() ? (try input.int(), SegmentBytes(file, try input.window())) : nil
            segments.append(
                Segment(
                    collection: collection, file: fileNumber, sequence: sequence, count: count,
                    bytes: SegmentBytes(file, try input.window()), run: run, losers: losers, keys: keys,
                    ranked: ranked))
        }
        return Partial(
            identity: identity, covers: covers, files: files, stats: stats, ingested: counts[0],
            appendedIn: counts[1], appendedOut: counts[2], incomplete: incomplete, entries: entries,
            pending: pending, groups: groups, groupsComplete: groupsComplete, picksLeast: picksLeast,
            ratings: ratings, ratingsComplete: ratingsComplete, segments: segments)
    }
}
