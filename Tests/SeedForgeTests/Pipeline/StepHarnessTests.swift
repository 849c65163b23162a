import Foundation
import Testing

@testable import SeedForge

/// What every step must honour, checked for every registered step kind (validate,
/// normalize, enrich, aggregate) on its spec example, run as the one step of a pipeline
/// over the repository's real fixtures (`KindExamples`), after Vector's transform
/// compliance tests: nothing is lost (each collection's records in, read or received, are
/// its records written, rejected, removed as duplicates or appended elsewhere, counted in
/// the files the run writes); the same bytes with 1 and 3 threads and with every record
/// spilled to disk (a memory limit of one byte); the same bytes again on a second run.
/// Source kinds (their example as a pipeline's one source) and output formats (their
/// example among the outputs of a repository pipeline) are held to the same.
@Suite("Step harness")
struct StepHarnessTests {
    static let stepKinds = Registry.allSpecs.filter { [.validate, .normalize, .enrich, .aggregate].contains($0.stage) }
        .map { "\($0.stage.rawValue):\($0.name)" }
    /// Source kinds and output formats, run the same way.
    static let sourceAndOutputKinds = Registry.allSpecs.filter { [.ingest, .emit].contains($0.stage) }
        .map { "\($0.stage.rawValue):\($0.name)" }

    /// What a run wrote: every file of the dataset by its path inside it (the manifest
    /// aside: it holds timings), and the accounting.
    struct Written {
        let files: [String: [UInt8]]
        let accounts: [CollectionAccount]
    }

    static func run(_ pipeline: Pipeline, threads: Int, memoryLimit: Int? = nil) throws -> Written {
        let dir = try TempDir()
        let result = try Runner.run(
            pipeline,
            options: RunOptions(
                outputRoot: dir.path, logger: Harness.silent, threads: threads, memoryLimit: memoryLimit))
        guard let folder = result.outputFolder else { throw KindExamples.ExampleError(description: "nothing written") }
        var files: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            let path = folder + "/" + relative
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
                relative != "manifest.json"
            else { continue }
            files[relative] = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        }
        return Written(files: files, accounts: result.counts)
    }

    /// The lines of an NDJSON side output naming `collection`.
    static func lines(_ written: Written, _ file: String, collection: String) throws -> Int {
        guard let bytes = written.files[file] else { return 0 }
        return try String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["collection"] as? String == collection
        }.count
    }

    @Test(arguments: stepKinds)
    func theStepLosesNothingAndWritesTheSameBytesWhateverTheThreadsAndMemory(kind: String) throws {
        try Self.check(kind)
    }

    @Test(arguments: sourceAndOutputKinds)
    func sourcesAndOutputsLoseNothingAndWriteTheSameBytesWhateverTheThreadsAndMemory(kind: String) throws {
        try Self.check(kind)
    }

    static func check(_ kind: String) throws {
        let spec = try #require(Registry.allSpecs.first { "\($0.stage.rawValue):\($0.name)" == kind })
        let placed = try KindExamples.place(spec).get()
        let pipeline = try placed.load()
        let one = try Self.run(pipeline, threads: 1)

        // Nothing lost, counted in what was written.
        #expect(!one.accounts.isEmpty && one.files.keys.contains { $0.hasSuffix(".json") }, "\(kind): nothing written")
        for account in one.accounts {
            let name = account.collection
            let into = account.read + account.received
            let out = account.emitted + account.reference + account.rejected + account.duplicates + account.appended
            #expect(into == out, "\(kind) in \(placed.context): \(name): \(into) records in, \(out) accounted for")
            if account.written, let bytes = one.files["\(name).json"] {
                let records = try JSONSerialization.jsonObject(with: Data(bytes)) as? [Any]
                #expect(
                    records?.count == account.emitted, "\(kind): \(name).json holds \(records?.count ?? -1) records")
            }
            #expect(
                try Self.lines(one, "rejects.ndjson", collection: name.name) == account.rejected, "\(kind): \(name)")
            #expect(
                try Self.lines(one, "duplicates.ndjson", collection: name.name) == account.duplicates,
                "\(kind): \(name)")
        }

        // The same bytes with three threads, spilled to disk, and on a second run.
        for (label, other) in [
            ("3 threads", try Self.run(pipeline, threads: 3)),
            ("a memory limit of 1 byte", try Self.run(pipeline, threads: 2, memoryLimit: 1)),
            ("a second run", try Self.run(placed.load(), threads: 1)),
        ] {
            #expect(other.files.keys.sorted() == one.files.keys.sorted(), "\(kind), \(label): other files")
            for (file, bytes) in one.files where other.files[file] != bytes {
                Issue.record("\(kind) in \(placed.context), \(label): \(file) differs")
            }
            #expect(
                other.accounts.map { "\($0)" } == one.accounts.map { "\($0)" }, "\(kind), \(label): other accounting")
        }
    }

    /// The harness covers every step kind the registry knows.
    @Test func theHarnessCoversEveryStepKind() {
        let registered =
            Registry.rules.count + Registry.normalizers.count + Registry.enrichers.count
            + Registry.aggregators.count
        #expect(Self.stepKinds.count == registered)
    }
}
