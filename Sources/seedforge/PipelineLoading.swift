import Foundation
import Logging
import SeedForge

extension LogOptions {
    /// Loads every definition before any data is read. Reports each error and returns
    /// the pipelines and the worst exit status; two pipelines writing the same dataset
    /// name are a usage error (they would overwrite each other).
    /// Test files (`*.test.yml`) among the paths are skipped, so `pipelines/*.yml` works,
    /// and a path given twice is loaded once.
    func loadAll(_ paths: [String], logger: Logger, uniqueNames: Bool = true) -> (pipelines: [Pipeline], status: ExitStatus) {
        var loaded: [Pipeline] = []
        var worst = ExitStatus.ok
        var seen: Set<String> = []
        for path in paths {
            if TestFile.isTestFile(path) {
                logger.debug("skipping test file \(path)")
                continue
            }
            guard seen.insert(URL(fileURLWithPath: path).standardizedFileURL.path).inserted else { continue }
            do {
                let pipeline = try Loader.load(path: path)
                if uniqueNames, let other = loaded.first(where: { $0.name == pipeline.name }) {
                    worst = max(worst, report(DefinitionError(
                        file: path, line: 1, column: 1,
                        message: "dataset name '\(pipeline.name)' is also used by \(other.file); each run writes one folder per name"), logger: logger))
                    continue
                }
                loaded.append(pipeline)
            } catch {
                worst = max(worst, report(error, logger: logger))
            }
        }
        return (loaded, worst)
    }
}
