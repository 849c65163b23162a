import Foundation

/// The pipelines named on a command line, loaded by one policy that `run`, `validate` and
/// `lint` share: test files (`*.test.yml`) are skipped, so `pipelines/*.yml` works; a file
/// named twice is loaded once; and, where datasets are written, two pipelines writing the
/// same dataset name are an error (they would overwrite each other's folder).
public struct PipelineSet {
    /// The pipelines that loaded, in argument order.
    public private(set) var pipelines: [Pipeline] = []
    /// Every definition error, in argument order (a `DefinitionError` or `DefinitionErrors`).
    public private(set) var errors: [Error] = []
    /// Test files among the arguments, skipped.
    public private(set) var skipped: [String] = []

    public init(paths: [String], uniqueNames: Bool) {
        var seen: Set<String> = []
        for path in paths {
            if TestFile.isTestFile(path) {
                skipped.append(path)
                continue
            }
            guard seen.insert(URL(fileURLWithPath: path).standardizedFileURL.path).inserted else { continue }
            do {
                let pipeline = try Loader.load(path: path)
                if uniqueNames, let other = pipelines.first(where: { $0.name == pipeline.name }) {
                    errors.append(
                        DefinitionError(
                            file: path, line: 1, column: 1,
                            message:
                                "dataset name '\(pipeline.name)' is also used by \(other.file); each run writes one folder per name"
                        ))
                    continue
                }
                pipelines.append(pipeline)
            } catch {
                errors.append(error)
            }
        }
    }
}
