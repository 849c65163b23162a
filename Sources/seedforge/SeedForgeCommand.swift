import ArgumentParser
import Foundation
import SeedForge

@main
struct SeedForgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seedforge",
        abstract: "Turn seed JSON, scraped pages and city dumps into indexed, sorted, deduplicated datasets.",
        discussion: """
            A pipeline (YAML, one per dataset) names its sources, the steps that validate, \
            normalise, enrich and aggregate the records, and the outputs to write.

            Exit codes:
              0  ok (records set aside within the thresholds still count as ok)
              1  the data failed: a malformed source, a reject threshold or a budget exceeded
              2  bad usage or a pipeline definition error
              3  an I/O or internal error (unwritable output, lock timeout)
            """,
        version: SeedForgeVersion.current,
        subcommands: [
            RunCommand.self, ValidateCommand.self, TestCommand.self, LintCommand.self, QueryCommand.self,
            ReportCommand.self,
            DiffCommand.self, RollbackCommand.self, MergeCommand.self,
            KindsCommand.self,
        ]
    )

    /// Parses and runs, mapping every error to a documented exit code: usage errors are 2
    /// (ArgumentParser's own default would be 64).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                print(message)
                Foundation.exit(0)
            }
            StandardError.write(message + "\n")
            Foundation.exit(ExitStatus.usage.rawValue)
        }
    }
}
