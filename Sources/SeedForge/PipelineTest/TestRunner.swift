import Foundation
import Logging

/// Runs a test file's cases through the real pipeline (every step, no outputs written)
/// and compares what comes out with what each case expects.
public enum TestRunner {
    public struct Outcome: Sendable {
        public let name: String
        public let line: Int
        /// Empty when the case passed; otherwise one line per difference.
        public let differences: [String]
        public var passed: Bool { differences.isEmpty }
    }

    public static func run(_ file: TestFile, pipeline: Pipeline, logger: Logger) throws -> [Outcome] {
        try file.cases.map { testCase in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "seedforge-test-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            var prepared = pipeline
            for index in prepared.sources.indices {
                let source = prepared.sources[index]
                switch testCase.inputs[source.collection.name] ?? .records([]) {
                case .fixture(let path):
                    prepared.sources[index].files = [path]
                case .records(let records):
                    let path = folder.appendingPathComponent("\(source.collection).input").path
                    FileManager.default.createFile(atPath: path, contents: Data(source.kind.document(holding: records)))
                    prepared.sources[index].files = [path]
                }
            }
            var differences: [String]
            do {
                var options = RunOptions(outputRoot: folder.path, writeOutputs: false, logger: logger, threads: 1)
                // The test compares the duplicates one by one: none rendered away past the limit.
                options.holdsDuplicates = true
                let result = try Runner.run(prepared, options: options)
                differences = result.state.sourceErrors.map {
                    "the input could not be read: \($0.error.location.brief): \($0.error.message)"
                }
                differences += compare(testCase, result, pipeline: pipeline)
            } catch {
                differences = ["the case could not run: \(error)"]
            }
            return Outcome(name: testCase.name, line: testCase.line, differences: differences)
        }
    }

    static func compare(_ testCase: TestFile.Case, _ result: RunResult, pipeline: Pipeline) -> [String] {
        var differences: [String] = []
        if let expected = testCase.expectedThresholds {
            let actual = result.thresholdFailures
            if expected.count != actual.count || zip(expected, actual).contains(where: { !$1.contains($0) }) {
                differences.append(
                    "thresholds: expected \(expected.isEmpty ? "none" : expected.joined(separator: "; ")), got \(actual.isEmpty ? "none" : actual.joined(separator: "; "))"
                )
            }
        }
        for name in testCase.expectedRecords.keys.sorted() {
            let emitted: [Value]
            if let schema = result.state.schemas[CollectionID(name)] {
                let ids = schema.fields.indices.map(FieldID.init(index:))
                emitted = result.state.records(CollectionID(name)).map { $0.object(fields: schema.fields, ids: ids) }
            } else {
                // An output file: the records as it writes them.
                let output = pipeline.outputs.first { $0.file == name }!
                let schema = result.state.schemas[loaded: output.collection]
                emitted = output.selected(result.state.records(output.collection)).map {
                    output.object($0, schema: schema)
                }
            }
            switch testCase.expectedRecords[name]! {
            case .count(let count):
                if emitted.count != count {
                    differences.append("\(name): expected \(count) records, got \(emitted.count)")
                }
            case .records(let expected):
                differences += compareList(name, expected: expected, actual: emitted)
            }
        }
        if let expected = testCase.expectedRejects {
            // One row per finding: a record rejected by two rules has two.
            let actual = result.state.rejects.flatMap { rejection in
                rejection.findings.map { row(rejection.collection, rejection.id, $0) }
            }
            differences += compareList("rejects", expected: expected, actual: actual)
        }
        if let expected = testCase.expectedWarnings {
            let actual = result.state.warnings.map { row($0.collection, $0.id, $0.finding) }
            differences += compareList("warnings", expected: expected, actual: actual)
        }
        if let expected = testCase.expectedDuplicates {
            let actual = result.state.duplicates.map { duplicate -> Value in
                .object(
                    JSONObject([
                        ("collection", .string(duplicate.collection.name)), ("id", duplicate.id ?? .null),
                        ("winner", duplicate.winnerID ?? .null),
                    ]))
            }
            differences += compareList("duplicates", expected: expected, actual: actual)
        }
        return differences
    }

    static func row(_ collection: CollectionID, _ id: Value?, _ finding: Finding) -> Value {
        .object(
            JSONObject([
                ("collection", .string(collection.name)), ("rule", .string(finding.rule.rawValue)),
                ("field", finding.field.map(Value.string) ?? .null),
                ("id", id ?? .null), ("message", .string(finding.message)),
                ("severity", .string(finding.severity.rawValue)),
            ]))
    }

    /// Element by element; for each expected object only the keys it gives are compared
    /// (`message` matches a part of the actual message); a key the actual entry does not
    /// have at all is a difference.
    static func compareList(_ label: String, expected: [Value], actual: [Value]) -> [String] {
        var differences: [String] = []
        if expected.count != actual.count {
            differences.append("\(label): expected \(expected.count), got \(actual.count)")
        }
        for index in 0..<min(expected.count, actual.count) {
            guard case .object(let wanted) = expected[index] else {
                differences.append("\(label)[\(index)]: expected entries are mappings of field: value")
                continue
            }
            for (key, value) in wanted.pairs {
                guard let got = actual[index].value(at: FieldPath(components: [.key(key)])) else {
                    var fields: [String] = []
                    if case .object(let object) = actual[index] { fields = object.keys }
                    differences.append(
                        "\(label)[\(index)]: there is no field '\(key)'\(Suggestion.phrase(for: key, in: fields))")
                    continue
                }
                if key == "message", label == "rejects" || label == "warnings", case .string(let part) = value,
                    case .string(let message) = got
                {
                    if !message.contains(part) {
                        differences.append(
                            "\(label)[\(index)].message: expected to contain \(JSONWriter.compact(value)), got \(JSONWriter.compact(got))"
                        )
                    }
                } else if !value.describes(got) {
                    differences.append(
                        "\(label)[\(index)].\(key): expected \(JSONWriter.compact(value)), got \(JSONWriter.compact(got))"
                    )
                }
            }
        }
        if actual.count > expected.count {
            for index in expected.count..<min(actual.count, expected.count + 3) {
                differences.append("\(label)[\(index)]: unexpected \(JSONWriter.compact(actual[index]))")
            }
        }
        return differences
    }
}
