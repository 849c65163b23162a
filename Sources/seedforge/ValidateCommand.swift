import ArgumentParser
import Foundation
import SeedForge

extension ReportFormat: ExpressibleByArgument {}

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check pipelines' data and report every finding, writing no dataset.",
        discussion: """
            Runs every step of each pipeline (ingest, validate, normalize, enrich, aggregate) \
            exactly as `run` does, but writes no dataset, and reports every finding with its \
            rule, severity, file, line, column, JSON Pointer, field and offending value.

            Formats: text (grouped by file; colour on a terminal unless NO_COLOR is set), \
            json (see README for the schema), github (workflow commands that annotate pull \
            requests), junit (XML: one testsuite per pipeline, one testcase per rule), html \
            (one self-contained page: findings by rule and by file, then each finding).

            Exit 0 when there are no error findings, 1 when there is at least one (or a \
            source cannot be read, or a threshold is exceeded; with --strict also for \
            warnings), 2 for a definition error.

            Examples (CI):
              seedforge validate pipelines/*.yml --format github
              seedforge validate pipelines/*.yml --format junit --output validation.xml
            """)

    @Argument(help: "Pipeline definition files (YAML).")
    var pipelines: [String]

    @Option(name: .long, help: "Report format: text, json, github, junit or html.")
    var format: ReportFormat = .text

    @Option(name: .long, help: "Write the report to this file instead of standard output.")
    var output: String?

    @Flag(name: .long, help: "Fail (exit 1) on warnings too.")
    var strict = false

    @Option(
        name: .customLong("max-findings"),
        help: "List at most this many findings (the summary and the exit code count all).")
    var maxFindings: Int?

    @OptionGroup var parallel: ThreadOptions

    @OptionGroup var log: LogOptions

    func validate() throws {
        if let maxFindings, maxFindings < 0 { throw ValidationError("--max-findings must not be negative") }
    }

    func run() throws {
        let progress = log.makeProgress()
        let logger = log.makeLogger(progress: progress)
        let (loaded, loadStatus) = log.loadAll(pipelines, logger: logger, uniqueNames: false)
        if loadStatus != .ok { throw ExitCode(loadStatus.rawValue) }
        var report = ValidationReport()
        var worst = ExitStatus.ok
        for pipeline in loaded {
            report.add(pipeline)
            do {
                var options = RunOptions(
                    writeOutputs: false, logger: logger, threads: parallel.threads, memoryLimit: parallel.memoryLimit)
                options.progress = progress
                report.add(try Runner.run(pipeline, options: options))
            } catch let error as SourceError {
                report.add(error, pipeline: pipeline.name)
            } catch {
                worst = max(worst, log.report(error, logger: logger))
            }
        }
        let color =
            format == .text && output == nil
            && ReportOptions.colorWanted(
                isTerminal: isatty(STDOUT_FILENO) != 0, environment: ProcessInfo.processInfo.environment)
        let text = format.render(report, options: ReportOptions(maxFindings: maxFindings, color: color))
        if let output {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                StandardError.write("error: cannot write the report to \(output): \(error.localizedDescription)\n")
                throw ExitCode(ExitStatus.ioOrInternal.rawValue)
            }
        } else {
            print(text, terminator: "")
        }
        if report.fails(strict: strict) { worst = max(worst, .dataFailed) }
        if worst != .ok { throw ExitCode(worst.rawValue) }
    }
}
