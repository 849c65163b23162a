import ArgumentParser
import Foundation
import SeedForge

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run pipelines and write their datasets.",
        discussion: """
            Each pipeline writes its dataset NAME (the pipeline's `name:`) into OUT/NAME/: \
            the declared outputs plus rejects.ndjson, duplicates.ndjson, warnings.ndjson and \
            manifest.json. Files are staged in a temporary folder and swapped in at the end, \
            so a failed or killed run leaves the previous dataset as it was. All definitions \
            are checked before any data is read; with several pipelines, a failing one does \
            not stop the others and the exit code is the worst of them.

            Each run compares its dataset with the one it replaces (changes.ndjson, and a \
            line such as `cities: +12 −3 ~40 since the last run`). A dataset over its \
            pipeline's budgets is not released: exit 1, the previous dataset stays, the new \
            one is kept in OUT/.NAME.rejected until --accept-changes releases it.

            Examples:
              seedforge run pipelines/honey-shops.yml
              seedforge run pipelines/*.yml --out build/datasets --log-format json
              seedforge run pipelines/cities.yml --accept-changes
              seedforge run pipelines/cities.yml --shard 0/4 --partial parts/0   (then seedforge merge)
            """)

    @Argument(help: "Pipeline definition files (YAML).")
    var pipelines: [String]

    @Option(name: .long, help: "Folder that receives one sub-folder per dataset.")
    var out = "out"

    @Option(
        name: .customLong("lock-timeout"), help: "Seconds to wait when another run of the same pipeline holds its lock."
    )
    var lockTimeout: Double = 600

    @Flag(
        name: .long,
        help:
            "Run even when a dataset already has the same definition, inputs and seedforge version as the run would (such a run is otherwise skipped: 'unchanged')."
    )
    var force = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "After each run, write the dataset's HTML report (as `seedforge report`) to this file.",
            discussion: "With several pipelines the path must hold {dataset}, replaced by each dataset's name.",
            valueName: "file"))
    var report: String?

    @Flag(
        name: .customLong("accept-changes"),
        help:
            "Release datasets even when they are over their pipeline's budgets (the manifest records that they were accepted)."
    )
    var acceptChanges = false

    @Option(
        name: .long,
        help:
            "Keep the last N released datasets in OUT/.history/NAME when a run replaces one, for `seedforge rollback` (default 0: none)."
    )
    var keep = 0

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run only share I of N (from 0/N to N-1/N) and write a partial result for `seedforge merge` (needs --partial).",
            valueName: "I/N"))
    var shard: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --shard: the folder the partial result is written to (replaced if it exists).", valueName: "dir"))
    var partial: String?

    @Option(
        name: .customLong("split-files-over"),
        help: ArgumentHelp(
            "With --shard: split JSON-array and NDJSON files at least this large into one byte range per shard (default 64MiB; every shard must be given the same).",
            valueName: "size"))
    var splitFilesOver: String?

    @OptionGroup var parallel: ThreadOptions

    @OptionGroup var log: LogOptions

    func validate() throws {
        guard keep >= 0 else { throw ValidationError("--keep must not be negative") }
        if shard == nil, splitFilesOver != nil { throw ValidationError("--split-files-over needs --shard") }
        if (shard == nil) != (partial == nil) {
            throw ValidationError("--shard and --partial go together: --shard I/N --partial DIR")
        }
        if let shard {
            do { _ = try Shard(parsing: shard) } catch let error as ShardError { throw ValidationError(error.message) }
            if let text = splitFilesOver, (ByteSize.parse(text) ?? 0) < 1 {
                throw ValidationError(
                    "--split-files-over must be a size such as 64MiB or 1000000 (bytes), found '\(text)'")
            }
            if pipelines.count > 1 { throw ValidationError("--shard runs one pipeline at a time") }
            if report != nil { throw ValidationError("--report needs a dataset: give it to `seedforge merge --out`") }
        }
        if let report, pipelines.count > 1, !report.contains("{dataset}") {
            throw ValidationError(
                "--report with several pipelines needs {dataset} in its path (e.g. reports/{dataset}.html)")
        }
    }

    func run() throws {
        let progress = log.makeProgress()
        let logger = log.makeLogger(progress: progress)
        let (loaded, loadStatus) = log.loadAll(pipelines, logger: logger)
        if loadStatus != .ok { throw ExitCode(loadStatus.rawValue) }
        if let shard, let partial, let pipeline = loaded.first {
            do {
                var options = RunOptions(
                    outputRoot: out, logger: logger, threads: parallel.threads, memoryLimit: parallel.memoryLimit)
                options.progress = progress
                let outcome = try ShardRun.run(
                    pipeline,
                    shard: try Shard(
                        parsing: shard,
                        splitBytes: splitFilesOver.flatMap(ByteSize.parse) ?? Shard.defaultSplitBytes),
                    partial: partial, options: options)
                if log.logFormat == .json {
                    logger.info("\(outcome.summaryLine)", metadata: ["dataset": "\(pipeline.name)"])
                } else if !log.quiet {
                    print("\(pipeline.name): \(outcome.summaryLine)")
                }
            } catch {
                throw ExitCode(log.report(error, logger: logger).rawValue)
            }
            return
        }
        var worst = ExitStatus.ok
        var finished: [RunResult] = []
        defer { RunResults.keepUntilExit(finished) }
        for pipeline in loaded {
            do {
                var options = RunOptions(
                    outputRoot: out, lockTimeout: lockTimeout, logger: logger, threads: parallel.threads, force: force,
                    memoryLimit: parallel.memoryLimit, acceptChanges: acceptChanges, keep: keep)
                options.progress = progress
                let result = try Runner.run(pipeline, options: options)
                finished.append(result)
                for line in [result.summaryLine] + (result.changesLine.map { [$0] } ?? []) {
                    if log.logFormat == .json {
                        logger.info("\(line)", metadata: ["dataset": "\(pipeline.name)"])
                    } else if !log.quiet {
                        print(line)
                    }
                }
                if let report, let folder = result.outputFolder {
                    let target = report.replacingOccurrences(of: "{dataset}", with: pipeline.name)
                    try DatasetReportFile.write(folder: folder, to: target)
                }
            } catch {
                worst = max(worst, log.report(error, logger: logger))
            }
        }
        if worst != .ok { throw ExitCode(worst.rawValue) }
    }
}

extension ExitStatus: Comparable {
    public static func < (lhs: ExitStatus, rhs: ExitStatus) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Results of finished runs are kept until the process exits: freeing hundreds of
/// thousands of records one by one just before exit is wasted time (the system reclaims
/// the memory at once).
enum RunResults {
    nonisolated(unsafe) private static var kept: [RunResult] = []

    static func keepUntilExit(_ results: [RunResult]) { kept += results }
}
