import Foundation
import Yams

/// A pipeline's test file (`NAME.test.yml` beside `NAME.yml`): cases of inline input and
/// expected output, run through the real pipeline by `seedforge test`.
///
/// ```yaml
/// cases:
///   - name: a shop with reviews shows their mean
///     input:                          # per collection: records, or {fixture: file}
///       shops:
///         - {name: A, rating: 4.8, address: x, coordinates: [1, 2]}
///       reviews:
///         fixture: reviews-sample.ndjson   # relative to the test file's folder
///     expect:                         # every key optional; what is given is checked
///       shops:                        # the emitted records, in order: only the fields
///         - {name: A, displayedRating: 4.5}   # written are compared; or a count: shops: 1
///       shops.json:                   # an output file: its records as it writes them
///         - {name: A, coordinates: [1, 2]}    # (its fields, where and layout)
///       rejects:                      # one entry per finding, in order: collection,
///         - {collection: reviews, rule: reference}   # rule, field, id, message (a part)
///       warnings: []                  # warning findings, the same way
///       duplicates:                   # collection, id, winner
///         - {collection: reviews, id: r1, winner: r1}
///       thresholds: []                # threshold messages (parts); unchecked if absent
/// ```
/// A collection without input gets no records. Thresholds are checked only when a case
/// lists them: a few records make fractions meaningless.
public struct TestFile: Sendable {
    public struct Case: Sendable {
        public let name: String
        public let line: Int
        /// Per collection: inline records, or a fixture file path.
        public let inputs: [String: Input]
        public let expectedRecords: [String: Expectation]
        public let expectedRejects: [Value]?
        public let expectedDuplicates: [Value]?
        public let expectedThresholds: [String]?
        public let expectedWarnings: [Value]?
    }

    public enum Input: Sendable {
        case records([Value])
        case fixture(String)
    }

    public enum Expectation: Sendable {
        case count(Int)
        case records([Value])
    }

    public let path: String
    public let cases: [Case]

    /// The test file of a pipeline: `x.test.yml` beside `x.yml` (`x.test.yaml` beside `x.yaml`).
    public static func path(forPipeline pipeline: String) -> String {
        let url = URL(fileURLWithPath: pipeline)
        let ext = url.pathExtension.isEmpty ? "yml" : url.pathExtension
        return url.deletingPathExtension().path + ".test." + ext
    }

    /// Whether a path names a test file rather than a pipeline (so `pipelines/*.yml`
    /// can be given to every command).
    public static func isTestFile(_ path: String) -> Bool {
        path.hasSuffix(".test.yml") || path.hasSuffix(".test.yaml")
    }

    /// The pipeline a path stands for: itself, or for a test file the pipeline beside it.
    public static func pipelinePath(for path: String) -> String {
        guard isTestFile(path) else { return path }
        let ext = (path as NSString).pathExtension
        return String(path.dropLast(".test.".count + ext.count)) + "." + ext
    }

    /// Loads a test file, checking it against the pipeline's collections.
    public static func load(path: String, pipeline: Pipeline) throws -> TestFile {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else {
            throw DefinitionError(
                file: path, line: 1, column: 1,
                message: "no test file \(path) for \(pipeline.file) (write one: see README, Pipeline tests)")
        }
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw DefinitionError(file: path, line: 1, column: 1, message: "test file is empty")
            }
            root = node
        } catch let error as YamlError {
            throw Loader.yamlError(error, file: path, yamlText: text)
        }
        let top = try ConfigNode(node: root, file: path).mapping("the test file")
        var collector = ErrorCollector(errors: top.unknownKeys(allowed: ["cases"]), fallback: top.node)
        let folder = (path as NSString).deletingLastPathComponent
        var cases: [Case] = []
        let nodes = collector.attempt { try top.require("cases").list("'cases'") } ?? []
        for (number, node) in nodes.enumerated() {
            if let testCase = collector.attempt({
                try loadCase(node, number: number + 1, pipeline: pipeline, folder: folder)
            }) {
                cases.append(testCase)
            }
        }
        if nodes.isEmpty, collector.errors.isEmpty { collector.errors.append(top.error("'cases' lists no test case")) }
        if !collector.errors.isEmpty { throw DefinitionErrors(collector.errors) }
        return TestFile(path: path, cases: cases)
    }

    static func loadCase(_ node: ConfigNode, number: Int, pipeline: Pipeline, folder: String) throws -> Case {
        let map = try node.mapping("case \(number)")
        var collector = ErrorCollector(errors: map.unknownKeys(allowed: ["name", "input", "expect"]), fallback: node)
        let name = collector.attempt { try map.requiredString("name") } ?? "case \(number)"
        let what = "case '\(name)'"
        func collection(_ keyNode: ConfigNode) throws -> String {
            let name = try keyNode.string("a collection name")
            let names = pipeline.collections.map(\.name)
            guard names.contains(name) else {
                throw keyNode.error(
                    "\(what): unknown collection '\(name)'\(Suggestion.phrase(for: name, in: names)); collections: \(names.joined(separator: ", "))"
                )
            }
            return name
        }
        /// What an `expect` key names: a collection (its records, every field under its
        /// name), or an output file (the records as that output writes them: its fields,
        /// its `where`, its layout).
        func recordsTarget(_ keyNode: ConfigNode) throws -> String {
            let name = try keyNode.string("a collection name")
            let names = pipeline.collections.map(\.name)
            if names.contains(name) { return name }
            if let output = pipeline.outputs.first(where: { $0.file == name }) {
                guard !(output.format is PrefixIndexFormat) else {
                    throw keyNode.error(
                        "\(what): '\(name)' is a prefix index, which holds keys, not records; expect its pages output or the collection"
                    )
                }
                return name
            }
            throw keyNode.error(
                "\(what): unknown collection or output '\(name)'\(Suggestion.phrase(for: name, in: names + pipeline.outputs.map(\.file))); collections: \(names.joined(separator: ", "))"
            )
        }
        var inputs: [String: Input] = [:]
        if let inputNode = map["input"],
            let inputMap = collector.attempt({ try inputNode.mapping("'input' of \(what)") })
        {
            for (key, value) in inputMap.mapping {
                let valueNode = ConfigNode(node: value, file: node.file)
                let keyNode = ConfigNode(node: key, file: node.file)
                guard let name = collector.attempt({ try collection(keyNode) }) else { continue }
                if pipeline.derivedCollections.contains(CollectionID(name)) {
                    collector.errors.append(
                        keyNode.error(
                            "\(what): '\(name)' is computed by group-stats, not read from a source; give input for the collections it is computed from"
                        ))
                    continue
                }
                if case .mapping = value {
                    let fixture = try valueNode.mapping("input of \(name)")
                    collector.errors += fixture.unknownKeys(allowed: ["fixture"])
                    if let file = collector.attempt({ try fixture.requiredString("fixture") }) {
                        let full = file.hasPrefix("/") ? file : (folder as NSString).appendingPathComponent(file)
                        var isDirectory: ObjCBool = false
                        if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory),
                            !isDirectory.boolValue
                        {
                            inputs[name] = .fixture(full)
                        } else {
                            collector.errors.append(
                                fixture["fixture"]!.error(
                                    "fixture '\(file)' is not a file (paths are relative to the test file's folder)"))
                        }
                    }
                } else if let source = pipeline.sources.first(where: { $0.collection.name == name }),
                    !source.kind.acceptsInlineRecords
                {
                    collector.errors.append(
                        valueNode.error(
                            "\(what): '\(name)' is a \(source.kindName) source: give its input as {fixture: page.html}")
                    )
                } else if let records = collector.attempt({
                    try valueNode.list("input of \(name)").map { try $0.value() }
                }) {
                    inputs[name] = .records(records)
                }
            }
        }
        var expected: [String: Expectation] = [:]
        var rejects: [Value]?
        var duplicates: [Value]?
        var thresholds: [String]?
        var warnings: [Value]?
        if let expectNode = map["expect"],
            let expectMap = collector.attempt({ try expectNode.mapping("'expect' of \(what)") })
        {
            for (key, value) in expectMap.mapping {
                let keyNode = ConfigNode(node: key, file: node.file)
                let valueNode = ConfigNode(node: value, file: node.file)
                let keyName = (try? keyNode.string("key")) ?? ""
                if keyName == "thresholds" {
                    thresholds = collector.attempt {
                        try valueNode.list("'thresholds' of \(what)").map { try $0.string("a threshold message") }
                    }
                    continue
                }
                if ["rejects", "duplicates", "warnings"].contains(keyName) {
                    let list = collector.attempt {
                        try valueNode.list("'\(keyName)' of \(what)").map { try $0.value() }
                    }
                    switch keyName {
                    case "rejects": rejects = list
                    case "warnings": warnings = list
                    default: duplicates = list
                    }
                    continue
                }
                guard let name = collector.attempt({ try recordsTarget(keyNode) }) else { continue }
                if case .scalar = value, let count = valueNode.node.int {
                    if count < 0 {
                        collector.errors.append(valueNode.error("\(what): a record count cannot be negative"))
                    }
                    expected[name] = .count(count)
                } else if let records = collector.attempt({
                    try valueNode.list("expected \(name)").map { try $0.value() }
                }) {
                    expected[name] = .records(records)
                }
            }
        }
        if map["expect"] == nil, collector.errors.isEmpty {
            collector.errors.append(node.error("\(what) has no 'expect': it would check nothing"))
        }
        if !collector.errors.isEmpty { throw DefinitionErrors(collector.errors) }
        return Case(
            name: name, line: node.line, inputs: inputs, expectedRecords: expected, expectedRejects: rejects,
            expectedDuplicates: duplicates, expectedThresholds: thresholds, expectedWarnings: warnings)
    }
}
