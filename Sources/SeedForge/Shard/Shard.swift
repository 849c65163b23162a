import Foundation

/// One of N shares of a run (`--shard I/N`, I from 0): the input files it reads, and the
/// steps it runs before the records of every share must meet.
///
/// The files of every source, in the order a plain run reads them, are numbered as units:
/// each file of a source is a unit of its own, except that a source that follows `next`
/// links is one unit (its pages are only found by reading them in turn). Shard I reads the
/// units `I*U/N ..< (I+1)*U/N`, so neighbouring files stay together and every unit is read
/// by exactly one shard, whatever N.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `I/N` (0 ≤ I < N).
    public init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError("'\(text)' is not a shard: write I/N, such as 0/4 for the first of four shares")
        }
        guard count >= 1, index >= 0, index < count else {
            throw ShardError(
                "shard \(text): the share number must be from 0 to \(max(count, 1) - 1) and the number of shares at least 1"
            )
        }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether this shard reads the unit numbered `unit` of `units`.
    func reads(unit: Int, of units: Int) -> Bool {
        unit * count / max(units, 1) == index || (units == 0 && index == 0)
    }
}

/// Which files a shard reads, and where a sharded run stops.
enum ShardPlan {
    /// The unit number of each source's files (a link-following source's entry has one
    /// number for the whole source), and how many units there are.
    static func units(_ pipeline: Pipeline) -> (perSource: [[Int]], total: Int) {
        var next = 0
        var perSource: [[Int]] = []
        for source in pipeline.sources {
            if source.kind.followsLinks {
                perSource.append([next])
                next += 1
            } else {
                perSource.append(source.files.indices.map { next + $0 })
                next += source.files.count
            }
        }
        return (perSource, next)
    }

    /// The positions (in `source.files`) of the files `shard` reads of source `rank`; nil
    /// for all of them and the pages they link to (a link-following source is all or
    /// nothing).
    static func files(ofSource rank: Int, in pipeline: Pipeline, shard: Shard) -> Set<Int>? {
        let (perSource, total) = units(pipeline)
        let source = pipeline.sources[rank]
        if source.kind.followsLinks {
            return shard.reads(unit: perSource[rank][0], of: total) ? nil : []
        }
        return Set(source.files.indices.filter { shard.reads(unit: perSource[rank][$0], of: total) })
    }

    /// The number of leading steps a shard runs: every step up to the first that needs the
    /// records of all shards at once (sort, dedupe, joins and statistics, stable ids, a
    /// validation block with a rule that compares records). The rest runs when the
    /// partials are merged.
    static func split(_ pipeline: Pipeline) -> Int {
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
                if !recordByRecord { return index }
                index = end
            case .step(let step, _, _):
                if !type(of: step).worksRecordByRecord { return index }
                index += 1
            }
        }
        return index
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
/// together, a missing shard. Exit code 2 (usage) for arguments, 3 for unreadable partials.
public struct ShardError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "error: \(message)" }
}

extension ShardError: ExitCoded { public var exitStatus: ExitStatus { .usage } }
