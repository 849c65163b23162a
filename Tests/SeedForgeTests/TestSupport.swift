import Foundation
import Logging
import Testing

@testable import SeedForge

/// Tests write rule codes as they appear in outputs (`#expect(finding.rule == "type")`);
/// the library itself names them only through `RuleCode`'s members or a kind's name.
extension RuleCode: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
}

/// Tests name collections as pipelines do (`result.records("cities")`).
extension CollectionID: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(value) }
}

/// A temporary folder removed when the test ends.
final class TempDir {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("seedforge-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, bytes: Array(text.utf8))
    }

    @discardableResult
    func write(_ name: String, bytes: [UInt8]) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: file)
        return file.path
    }

    func read(_ name: String) throws -> String {
        try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
    }

    func bytes(_ name: String) throws -> Data {
        try Data(contentsOf: url.appendingPathComponent(name))
    }
}

/// Runs pipelines written inline against inline data through the real loader and runner
/// (the conformance helper every stage test uses: records in, records and findings out).
enum Harness {
    static let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func load(_ yaml: String, files: [String: String] = [:], in dir: TempDir? = nil) throws -> Pipeline {
        let dir = try dir ?? TempDir()
        for (name, text) in files { try dir.write(name, text) }
        let path = try dir.write("pipeline.yml", yaml)
        return try Loader.load(path: path)
    }

    /// Loads and runs without writing outputs.
    static func run(_ yaml: String, files: [String: String]) throws -> RunResult {
        let dir = try TempDir()
        let pipeline = try load(yaml, files: files, in: dir)
        return try Runner.run(
            pipeline, options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: silent))
    }

    /// The source error a pipeline gives on the given input files (nil when it runs).
    static func sourceError(_ yaml: String, files: [String: [UInt8]]) -> SourceError? {
        do {
            let dir = try TempDir()
            for (name, bytes) in files { try dir.write(name, bytes: bytes) }
            let pipeline = try load(yaml, in: dir)
            // A writing run stops at the first file it cannot read.
            _ = try Runner.run(
                pipeline, options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: true, logger: silent))
            return nil
        } catch let error as SourceError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    /// The definition errors a YAML text produces (empty when it loads).
    static func definitionErrors(_ yaml: String, files: [String: String] = ["data.json": "[]"]) -> [DefinitionError] {
        do {
            _ = try load(yaml, files: files)
            return []
        } catch let errors as DefinitionErrors {
            return errors.errors
        } catch let error as DefinitionError {
            return [error]
        } catch {
            Issue.record("unexpected error \(error)")
            return []
        }
    }
}

extension RunResult {
    /// The emitted records of a collection as JSON objects.
    func records(_ collection: CollectionID) -> [[String: Value]] {
        let schema = state.schemas[collection]!
        return state.records(collection).map { record in
            var out: [String: Value] = [:]
            for (index, field) in schema.fields.enumerated() { out[field.name] = record[FieldID(index: index)] }
            return out
        }
    }

    func rejects(_ collection: CollectionID) -> [Rejection] { state.rejects.filter { $0.collection == collection } }

    func rejectedRules(_ collection: CollectionID) -> [String] {
        rejects(collection).map { $0.findings[0].rule.rawValue }
    }
}

/// The real `seedforge` binary, run as a user would.
enum CLI {
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var binary: String {
        if let override = ProcessInfo.processInfo.environment["SEEDFORGE_BIN"] { return override }
        return repoRoot.appendingPathComponent(".build/debug/seedforge").path
    }

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    @discardableResult
    static func run(_ arguments: [String], cwd: String? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = try start(arguments, cwd: cwd, environment: environment)
        return process.finish()
    }

    final class Running {
        let process: Process
        let out: Pipe
        let err: Pipe
        init(process: Process, out: Pipe, err: Pipe) {
            self.process = process
            self.out = out
            self.err = err
        }

        /// Reads both pipes at once: a command that fills one pipe (64 KiB) while the other
        /// is read would otherwise wait forever.
        func finish() -> Result {
            final class Box: @unchecked Sendable { var data = Data() }
            let errors = Box()
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { [err] in
                errors.data = err.fileHandleForReading.readDataToEndOfFile()
            }
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            group.wait()
            let stderr = errors.data
            process.waitUntilExit()
            return Result(
                status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                stderr: String(decoding: stderr, as: UTF8.self))
        }
    }

    /// Another program (python3 computing expected values independently), run the same way.
    static func runProgram(_ executable: String, _ arguments: [String], cwd: String? = nil) throws -> Result {
        try start(arguments, cwd: cwd, executable: executable).finish()
    }

    static func start(
        _ arguments: [String], cwd: String? = nil, environment: [String: String] = [:], executable: String? = nil
    ) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: cwd ?? repoRoot.path)
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SEEDFORGE_FAULT")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, out: out, err: err)
    }
}

/// Parses a JSON file written by seedforge with Foundation (an independent reader).
func jsonObject(_ data: Data) throws -> Any {
    try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
}

/// A small deterministic generator (SplitMix64), so randomized tests draw the same inputs on
/// every run and a failure names an input that reproduces.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (the remainder of the next draw).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

extension OutputDirectory {
    /// Writes and swaps into place a dataset at `target` holding the one file `file` (a
    /// previous dataset for a test's run to replace, or to leave as it was).
    static func commitDataset(at target: URL, file: String, text: String) throws {
        let folder = try OutputDirectory(target: target, threads: 1)
        try folder.write(Array(text.utf8), to: file)
        try folder.commit()
    }
}
