import ArgumentParser
import SeedForge

struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check pipeline definitions without reading any data.",
        discussion: """
            Reports unknown keys and kinds (with the nearest valid name), wrong value types, \
            unknown collections and fields, missing input files and bad output names, each \
            with the YAML file, line and column. Exit 0 when every definition is valid, 2 otherwise.
            """)

    @Argument(help: "Pipeline definition files (YAML).")
    var pipelines: [String]

    @OptionGroup var log: LogOptions

    func run() throws {
        let logger = log.makeLogger()
        var worst = ExitStatus.ok
        for path in pipelines where !TestFile.isTestFile(path) {
            do {
                let pipeline = try Loader.load(path: path)
                if !log.quiet {
                    let files = pipeline.sources.reduce(0) { $0 + $1.files.count }
                    print("\(path): ok (\(pipeline.name): \(pipeline.sources.count) sources, \(files) input files, \(pipeline.steps.count) steps, \(pipeline.outputs.count) outputs)")
                }
            } catch {
                worst = max(worst, log.report(error, logger: logger))
            }
        }
        if worst != .ok { throw ExitCode(worst.rawValue) }
    }
}
