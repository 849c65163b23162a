import Logging
import SeedForge

extension LogOptions {
    /// Loads the pipelines named on the command line (`PipelineSet` holds the policy),
    /// reports each definition error and returns the pipelines with the worst exit status.
    func loadAll(
        _ paths: [String], logger: Logger, uniqueNames: Bool = true
    ) -> (pipelines: [Pipeline], status: ExitStatus) {
        let set = PipelineSet(paths: paths, uniqueNames: uniqueNames)
        for path in set.skipped { logger.debug("skipping test file \(path)") }
        let worst = set.errors.reduce(ExitStatus.ok) { max($0, report($1, logger: logger)) }
        return (set.pipelines, worst)
    }
}
