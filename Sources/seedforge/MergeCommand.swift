import ArgumentParser
import Foundation
import SeedForge

struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the partial results of sharded runs, and finish the run into a dataset.",
        discussion: """
            `seedforge run PIPELINE --shard I/N --partial DIR` runs share I of N of a pipeline: \
            its part of the input files and the steps that work record by record. `merge` \
            combines such partials: with --partial DIR into one partial (any grouping and \
            order gives the same bytes), with --out into the dataset, byte for byte what a \
            plain `seedforge run` writes: the remaining steps (sort, dedupe, joins, \
            statistics), then the outputs, manifest and accounting, swapped into place under \
            the dataset's lock. Partials of another pipeline definition, input set, seedforge \
            build or shard count are refused, and a missing shard is named.

            Examples:
              seedforge merge parts/0 parts/1 --partial parts/0-1
              seedforge merge parts/0-1 parts/2 parts/3 --out out
            """)

    @Argument(help: "Partial folders (written by `seedforge run --shard` or `seedforge merge --partial`).")
    var partials: [String]

    @Option(name: .long, help: ArgumentHelp("Write the merged partial to this folder.", valueName: "dir"))
    var partial: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Finish: write the dataset into OUT/NAME, as `seedforge run --out` does.", valueName: "out"))
    var out: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The pipeline definition (default: the file the shards ran, as recorded in the partials).",
            valueName: "file"))
    var pipeline: String?

    @Option(
        name: .customLong("lock-timeout"), help: "Seconds to wait when another run of the same pipeline holds its lock."
    )
    var lockTimeout: Double = 600

    @Flag(name: .customLong("accept-changes"), help: "Release the dataset even when it is over its budgets.")
    var acceptChanges = false

    @Option(name: .long, help: "Keep the last N released datasets in OUT/.history/NAME (as `run --keep`).")
    var keep = 0

    @OptionGroup var parallel: ThreadOptions

    @OptionGroup var log: LogOptions

    func validate() throws {
        if partials.isEmpty { throw ValidationError("give the partial folders to merge") }
        if (partial == nil) == (out == nil) {
            throw ValidationError(
                "give either --partial DIR (merge into one partial) or --out DIR (finish the dataset)")
        }
        guard keep >= 0 else { throw ValidationError("--keep must not be negative") }
    }

    func run() throws {
        let progress = log.makeProgress()
        let logger = log.makeLogger(progress: progress)
        do {
            if let partial {
                let outcome = try ShardRun.merge(partials, into: partial)
                if log.logFormat == .json {
                    logger.info("\(outcome.summaryLine)")
                } else if !log.quiet {
                    print(outcome.summaryLine)
                }
                return
            }
            let file = try pipeline ?? ShardRun.pipelineFile(of: partials)
            let (loaded, loadStatus) = log.loadAll([file], logger: logger)
            if loadStatus != .ok { throw ExitCode(loadStatus.rawValue) }
            var options = RunOptions(
                outputRoot: out ?? "out", lockTimeout: lockTimeout, logger: logger, threads: parallel.threads,
                memoryLimit: parallel.memoryLimit, acceptChanges: acceptChanges, keep: keep)
            options.progress = progress
            let result = try ShardRun.finish(loaded[0], partials: partials, options: options)
            RunResults.keepUntilExit([result])
            for line in [result.summaryLine] + (result.changesLine.map { [$0] } ?? []) {
                if log.logFormat == .json {
                    logger.info("\(line)", metadata: ["dataset": "\(loaded[0].name)"])
                } else if !log.quiet {
                    print(line)
                }
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw ExitCode(log.report(error, logger: logger).rawValue)
        }
    }
}
