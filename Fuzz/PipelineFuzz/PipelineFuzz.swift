import Foundation
import FuzzSupport
import SeedForge

/// The pipeline loader (what `lint`, `validate` and `run` all go through): YAML text to a
/// checked pipeline or definition errors with file, line and column. Paths resolve from
/// pipelines/, so the shipped definitions in the corpus find their fixtures.
@main enum PipelineFuzz {
    static func main() {
        let folder = Repository.file("pipelines")
        FuzzMain.run { bytes in
            guard let yaml = String(validating: bytes, as: UTF8.self) else { return }
            do {
                let pipeline = try Loader.load(yaml: yaml, file: folder + "/fuzz.yml", baseDirectory: folder)
                _ = pipeline.sources.count
            } catch let error as DefinitionError {
                _ = error.description
            } catch let errors as DefinitionErrors {
                _ = errors.description
            } catch {
                fatalError("the loader threw something other than a DefinitionError: \(error)")
            }
        }
    }
}
