import ArgumentParser
import Foundation
import SeedForge

struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run pipelines' tests: inline inputs through the real pipeline, compared with the expected output.",
        discussion: """
            For each pipeline NAME.yml, runs the cases of NAME.test.yml beside it (a test file \
            given directly is also accepted). Prints PASS or FAIL per case, with one line per \
            difference, then `N passed, M failed`. Exit 0 when every case passes, 1 when one \
            fails, 2 for a definition error in a pipeline or a test file.

            Example:
              seedforge test pipelines/honey-shops.yml
            """)

    @Argument(help: "Pipeline definition files (YAML), or their .test.yml files.")
    var pipelines: [String]

    @OptionGroup var log: LogOptions

    func run() throws {
        let logger = log.makeLogger()
        var seen: [String] = []
        for argument in pipelines {
            let pipeline = TestFile.pipelinePath(for: argument)
            if !seen.contains(pipeline) { seen.append(pipeline) }
        }
        var passed = 0
        var failed = 0
        var worst = ExitStatus.ok
        for path in seen {
            do {
                let pipeline = try Loader.load(path: path)
                let file = try TestFile.load(path: Paths.display(TestFile.path(forPipeline: path)), pipeline: pipeline)
                for outcome in try TestRunner.run(file, pipeline: pipeline, logger: logger) {
                    if outcome.passed {
                        passed += 1
                        if !log.quiet { print("PASS \(file.path):\(outcome.line): \(outcome.name)") }
                    } else {
                        failed += 1
                        print("FAIL \(file.path):\(outcome.line): \(outcome.name)")
                        for difference in outcome.differences { print("  - \(difference)") }
                    }
                }
            } catch {
                worst = max(worst, log.report(error, logger: logger))
            }
        }
        print("\(passed) passed, \(failed) failed")
        if failed > 0 { worst = max(worst, .dataFailed) }
        if worst != .ok { throw ExitCode(worst.rawValue) }
    }
}
