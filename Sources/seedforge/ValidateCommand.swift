import ArgumentParser
import Foundation
import SeedForge

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check pipelines' data and report every finding, writing no dataset.",
        discussion: """
            Runs every step of each pipeline (ingest, validate, normalize, enrich, aggregate) \
            exactly as `run` does, but writes nothing. Prints one line per finding, \
            `file:line:column: severity: message [rule] (field field)`, sorted by place, \
            then `N errors, M warnings in K files`.

            Exit 0 when there are no error findings, 1 when there is at least one (or a \
            source cannot be read, or a threshold is exceeded), 2 for a definition error.

            Example (CI):
              seedforge validate pipelines/honey-shops.yml
            """)

    @Argument(help: "Pipeline definition files (YAML).")
    var pipelines: [String]

    @OptionGroup var parallel: ThreadOptions

    @OptionGroup var log: LogOptions

    func run() throws {
        let logger = log.makeLogger()
        let (loaded, loadStatus) = log.loadAll(pipelines, logger: logger)
        if loadStatus != .ok { throw ExitCode(loadStatus.rawValue) }
        var report = ValidationReport()
        var worst = ExitStatus.ok
        for pipeline in loaded {
            do {
                report.add(try Runner.run(pipeline, options: RunOptions(writeOutputs: false, logger: logger, threads: parallel.threads)))
            } catch let error as SourceError {
                report.addFailure(error.description)
            } catch {
                worst = max(worst, log.report(error, logger: logger))
            }
        }
        print(TextReport.render(report), terminator: "")
        if report.errorCount > 0 || !report.failures.isEmpty { worst = max(worst, .dataFailed) }
        if worst != .ok { throw ExitCode(worst.rawValue) }
    }
}
