import Foundation
import Logging

/// The emit stage of a run: every output, the side outputs (rejects, duplicates,
/// warnings) and the manifest, written into a staging folder that then replaces the
/// previous dataset in one step. Any failure discards the staging folder and leaves the
/// previous dataset as it was.
enum Emitter {
    static func write(
        _ pipeline: Pipeline, state: RunState, ledger: InputLedger, accounting: [CollectionAccount], target: URL,
        started: Date, logger: Logger
    ) throws {
        let emitClock = ContinuousClock.now
        let folder = try OutputDirectory(target: target, threads: state.threads)
        do {
            var outputs: [Manifest.Output] = []
            func write(_ bytes: [UInt8], _ file: String, collection: String?, format: String, records: Int) throws {
                try folder.write(bytes, to: file)
                outputs.append(
                    Manifest.Output(
                        file: file, collection: collection, format: format, records: records, sha256: SHA256.hex(bytes),
                        bytes: bytes.count, files: 1))
            }
            // Spilled records are decoded by the outputs concurrently: make the codec first.
            _ = state.spill.codec()
            // Outputs are independent files: write them concurrently, list them in order.
            state.progress?.begin(
                stage: "write outputs", unit: "outputs", total: pipeline.outputs.count, totalBytes: nil)
            let written: [Result<Manifest.Output, Error>] = state.threads.run(pipeline.outputs.count) { index in
                let output = pipeline.outputs[index]
                let store = state.store(output.collection)
                let writer = OutputWriter(
                    folder: folder, file: output.file, outputs: pipeline.outputs, threads: state.threads)
                let clock = ContinuousClock.now
                defer { state.progress?.advance(items: 1, bytes: 0, records: store.count) }
                return Result {
                    let records = try output.selected(store)
                    try output.format.write(
                        records, fields: output.fields.map { state.schemas[output.collection]![$0] },
                        ids: output.fields, into: writer)
                    return Manifest.Output(
                        file: output.file, collection: output.collection, format: output.formatName,
                        records: records.count,
                        sha256: writer.digest, bytes: writer.written.reduce(0) { $0 + $1.bytes },
                        files: writer.written.count,
                        seconds: Runner.seconds(since: clock))
                }
            }
            for result in written { outputs.append(try result.get()) }
            let paths = SideOutputs.PathMap(paths: ledger.datasetPaths)
            try write(
                SideOutputs.rejects(state.rejects, schemas: state.schemas, paths: paths), SideOutputs.rejectsFile,
                collection: nil, format: "ndjson", records: state.rejects.count)
            try write(
                SideOutputs.duplicates(state.duplicates, paths: paths), SideOutputs.duplicatesFile, collection: nil,
                format: "ndjson", records: state.duplicates.count)
            try write(
                SideOutputs.warnings(state.warnings, paths: paths), SideOutputs.warningsFile, collection: nil,
                format: "ndjson", records: state.warnings.count)
            var findingCounts: [String: Int] = [:]
            for rejection in state.rejects {
                for finding in rejection.findings { findingCounts[finding.rule, default: 0] += 1 }
            }
            var warningCounts: [String: Int] = [:]
            for warning in state.warnings { warningCounts[warning.finding.rule, default: 0] += 1 }
            let manifest = Manifest(
                pipeline: pipeline, inputs: ledger.inputs, outputs: outputs, accounting: accounting,
                steps: state.stepStats,
                findings: findingCounts, warnings: warningCounts, incomplete: state.incomplete, startedAt: started,
                seconds: Runner.seconds(since: started),
                threads: state.threads)
            try folder.write(manifest.render(), to: SideOutputs.manifestFile)
            logger.debug("outputs written in \(String(format: "%.3f", Runner.seconds(since: emitClock))) s")
            try FaultInjection.point("before-swap")
            try folder.commit()
        } catch {
            folder.discard()
            throw error
        }
    }
}
