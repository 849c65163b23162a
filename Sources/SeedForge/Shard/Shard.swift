import Foundation

/// One of N shares of a run (`--shard I/N`, I from 0): the input files it reads, and the
/// steps it runs before the records of every share must meet.
///
/// The files of every source, in the order a plain run reads them, are numbered as units:
/// each file of a source is a unit of its own, except that a source that follows `next`
/// links is one unit (its pages are only found by reading them in turn). Unit u of U goes to
/// shard `u*N/U`, so neighbouring files stay together and every unit is read by exactly one
/// shard, whatever N. A file of at least `splitBytes` that a source can read in part (a
/// JSON array or NDJSON, not gzip-compressed) is no unit: every shard reads one N-th of its
/// bytes, the records that start there. Nor is a file of reference data that the shards'
/// `nearest` and `lookup` steps search (`ShardPlan.steps(of:)`): every shard reads it whole.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int
    /// Files at least this large are split into byte ranges, one per shard.
    public var splitBytes: Int

    /// Files of 64 MiB and more are split by default.
    public static let defaultSplitBytes = 64 << 20

    public init(index: Int, count: Int, splitBytes: Int = Shard.defaultSplitBytes) {
        self.index = index
        self.count = count
        self.splitBytes = splitBytes
    }

    /// Parses `I/N` (0 ≤ I < N).
    public init(parsing text: String, splitBytes: Int = Shard.defaultSplitBytes) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError("'\(text)' is not a shard: write I/N, such as 0/4 for the first of four shares")
        }
        guard count >= 1 else { throw ShardError("shard \(text): the number of shares must be at least 1") }
        guard index >= 0, index < count else {
            throw ShardError("shard \(text): the share number must be from 0 to \(count - 1)")
        }
        self.init(index: index, count: count, splitBytes: splitBytes)
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether this shard reads the unit numbered `unit` of `units`.
    func reads(unit: Int, of units: Int) -> Bool {
        unit * count / max(units, 1) == index || (units == 0 && index == 0)
    }

    /// This shard's byte range of a file of `bytes` split between all shards.
    func range(of bytes: Int) -> Range<Int> { bytes * index / count..<bytes * (index + 1) / count }
}

/// What a shard reads of one file.
enum FileShare: Equatable {
    case none
    case whole
    /// The records that start in `range`; `part` orders the shards' parts of the file.
    case part(Range<Int>, part: Int)
}

/// Which files a shard reads, and where a sharded run stops.
enum ShardPlan {
    /// The step the finish starts with (number `split`) when it is a `T` the shards may
    /// begin: not after a validate block the shards began, whose records the finish
    /// settles first (`ShardUnique`).
    static func leadingStep<T>(_ pipeline: Pipeline, split: Int, as type: T.Type) -> T? {
        guard ShardUnique.block(pipeline, split: split) == nil, split < pipeline.steps.count,
            case .step(let step, _, _) = pipeline.steps[split]
        else { return nil }
        return step as? T
    }

    /// Whether a file is split into byte ranges between the shards.
    static func splits(_ file: String, of source: SourceDefinition, shard: Shard) -> Bool {
        guard shard.count > 1, source.kind.readsByteRanges, (FileStamp.of(file)?.bytes ?? 0) >= shard.splitBytes
        else { return false }
        // A gzip-compressed file (known by its first bytes, as ingest knows it) is read whole:
        // its byte ranges would be the compressed file's, not the text's.
        guard let handle = FileHandle(forReadingAtPath: file) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 2)) ?? Data()
        return head != Data([0x1F, 0x8B])
    }

    /// What `shard` reads of each file of each source (by position in `source.files`); nil
    /// for a source read whole with the pages it links to (a link-following source is all or
    /// nothing: its files are one unit).
    static func shares(in pipeline: Pipeline, shard: Shard) -> [[FileShare]?] {
        // Units are numbered across all sources: a link-following source is one, a file
        // split between the shards none, a source every shard reads whole none.
        let shared = Set(sharedSources(pipeline))
        var total = 0
        let units: [[Int?]] = pipeline.sources.enumerated().map { number, source in
            if shared.contains(number) { return [] }
            if source.kind.followsLinks {
                defer { total += 1 }
                return [total]
            }
            return source.files.map { file in
                if splits(file, of: source, shard: shard) { return nil }
                defer { total += 1 }
                return total
            }
        }
        return zip(pipeline.sources, units).enumerated().map { number, pair in
            let (source, units) = pair
            if shared.contains(number) {
                return source.kind.followsLinks ? nil : Array(repeating: .whole, count: source.files.count)
            }
            if source.kind.followsLinks {
                return shard.reads(unit: units[0]!, of: total)
                    ? nil : Array(repeating: .none, count: source.files.count)
            }
            return zip(source.files, units).map { file, unit in
                guard let unit else {
                    return .part(shard.range(of: FileStamp.of(file)?.bytes ?? 0), part: shard.index)
                }
                return shard.reads(unit: unit, of: total) ? .whole : .none
            }
        }
    }

    /// The number of leading steps a shard runs: every step up to the first that needs the
    /// records of all shards at once (sort, dedupe, joins and statistics, stable ids), or
    /// up to and including a validation block with a rule that compares records, which the
    /// shards begin and the finish completes (`ShardUnique`). The rest runs when the
    /// partials are merged.
    static func split(_ pipeline: Pipeline) -> Int { steps(of: pipeline).count }

    /// The sources every shard reads whole (see `steps(of:)`), by number.
    static func sharedSources(_ pipeline: Pipeline) -> [Int] { steps(of: pipeline).shared }

    /// The leading steps a shard runs, and the sources every shard reads whole: those of
    /// the reference collections that `nearest` and `lookup` steps among them search.
    /// Such a step works record by record on its own collection once the collection it
    /// searches is whole in every shard; the shards then read those sources whole, and
    /// only shard 0 reports their records, rejects and warnings. It stays in the finish
    /// when it searches a collection that is no source's reference data (statistics, an
    /// unnested collection), or one a record-by-record step unnests into another.
    static func steps(of pipeline: Pipeline) -> (count: Int, shared: [Int]) {
        var shared: Set<CollectionID> = []
        var unnested: Set<CollectionID> = []
        func result(_ count: Int) -> (count: Int, shared: [Int]) {
            (count, pipeline.sources.indices.filter { shared.contains(pipeline.sources[$0].collection) })
        }
        var index = 0
        while index < pipeline.steps.count {
            switch pipeline.steps[index] {
            case .validate:
                // A block of validate steps runs as one pass: it stays whole.
                var end = index
                var recordByRecord = true
                while end < pipeline.steps.count, case .validate(let step) = pipeline.steps[end] {
                    if type(of: step.rule).comparesRecords { recordByRecord = false }
                    end += 1
                }
                // A block whose rules compare records (`unique`) is the shards' last: they
                // run its other rules and leave the findings unsettled (`ShardUnique`).
                if !recordByRecord { return result(end) }
                index = end
            case .step(let step, _, _):
                if type(of: step).worksRecordByRecord {
                    // The records it makes of a collection every shard holds whole would
                    // be made by every shard.
                    if step.made != nil {
                        if shared.contains(step.collection) { return result(index) }
                        unnested.insert(step.collection)
                    }
                } else if let from = step.lookedUp, pipeline.referenceCollections.contains(from),
                    !pipeline.derivedCollections.contains(from), !unnested.contains(from),
                    pipeline.sources.contains(where: { $0.collection == from })
                {
                    shared.insert(from)
                } else {
                    return result(index)
                }
                index += 1
            }
        }
        return result(index)
    }

    /// What identifies the input set: every listed file of every source, by its path in the
    /// dataset and its size and modification time. Shards and merges of another input set
    /// are refused.
    static func inputFingerprint(_ pipeline: Pipeline) -> String {
        var text = ""
        for (rank, source) in pipeline.sources.enumerated() {
            for file in source.files {
                let stamp = FileStamp.of(file)
                text +=
                    "\(rank)\t\(Paths.relative(file, to: pipeline.baseDirectory))\t\(stamp?.bytes ?? -1)\t\(stamp?.modified ?? -1)\n"
            }
        }
        return SHA256.hex(Array(text.utf8))
    }
}

/// A sharded run or a merge that cannot go on: a bad `--shard`, partials that do not belong
/// together or are damaged, a missing shard, a `--partial` folder that holds something
/// else. Exit code 2.
public struct ShardError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "error: \(message)" }
}

extension ShardError: ExitCoded { public var exitStatus: ExitStatus { .usage } }
