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
        // The same loading as `run`: a file named twice is checked once, and two
        // pipelines writing one dataset name are an error here as there.
        let (loaded, worst) = log.loadAll(pipelines, logger: logger)
        if !log.quiet {
            for pipeline in loaded {
                let files = pipeline.sources.reduce(0) { $0 + $1.files.count }
                print(
                    "\(pipeline.file): ok (\(pipeline.name): \(pipeline.sources.count) sources, \(files) input files, \(pipeline.steps.count) steps, \(pipeline.outputs.count) outputs)"
                )
            }
        }
        if worst != .ok { throw ExitCode(worst.rawValue) }
    }
}
