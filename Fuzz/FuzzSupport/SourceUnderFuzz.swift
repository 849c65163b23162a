import Foundation

@testable import SeedForge

/// One source of a shipped pipeline, reading fuzzer input as if it were one of its files:
/// the same path as a run (the kind's reader, the field mapping, findings with their
/// locations, the next page), with the one rule checked that every read must keep:
/// every record read is either kept or rejected.
public struct SourceUnderFuzz {
    let pipeline: Pipeline
    let source: SourceDefinition

    /// `pipeline` is relative to the repository root.
    public init(pipeline file: String, collection: String) {
        let path = Repository.file(file)
        do {
            pipeline = try Loader.load(path: path)
        } catch {
            fatalError("\(file) does not load: \(error)")
        }
        guard let source = pipeline.sources.first(where: { $0.collection.name == collection }) else {
            fatalError("\(file) has no source \(collection)")
        }
        self.source = source
    }

    public func read(_ bytes: UnsafeBufferPointer<UInt8>) {
        let state = RunState(schemas: pipeline.schemas, threads: 1)
        var sink = IngestSink(
            collection: source.collection, mapping: source.mapping, state: state, threads: state.threads,
            limits: pipeline.limits)
        let file = source.files.first ?? source.root + "/fuzz-input"
        let text = SourceText(displayPath: "fuzz-input", bytes: Array(bytes))
        text.absolutePath = file
        text.sourceRoot = source.root
        text.fieldPaths = source.mapping.pathsByName
        state.keep(text)
        var messages: [String] = []
        do {
            _ = try source.kind.read(text, into: &sink)
            switch source.kind.nextFile(after: text, path: file) {
            case .failed(let error): messages.append(error.description)
            case .refused(let reason): messages.append(reason)
            case .file(let next, let link): messages.append(next + (link?.description ?? ""))
            case nil: break
            }
        } catch let error as SourceError {
            messages.append(error.description)
            return
        } catch {
            fatalError("a source threw something other than a SourceError: \(error)")
        }
        // Findings are shown with their file, line and column: compute every one.
        for rejection in state.rejects {
            for finding in rejection.findings {
                messages.append((finding.location?.description ?? "") + finding.message)
            }
        }
        for warning in state.warnings { messages.append(warning.finding.location?.description ?? "") }
        let kept = state.store(source.collection).count
        let rejected = state.rejects.count
        if sink.count != kept + rejected {
            fatalError("records lost: \(sink.count) read, \(kept) kept, \(rejected) rejected")
        }
    }
}
