import Foundation
import Yams

@testable import SeedForge

/// Each kind's spec example placed in a pipeline of the repository, over its real fixtures:
/// a source's example is the one source of a pipeline in `pipelines/`; a step's example is
/// the one step of a pipeline whose sources hold the collections and fields it names (the
/// first of `contexts` it loads in); an output's example replaces the outputs of the same
/// file in such a pipeline, whose steps make the fields it writes. What the documentation
/// and the step harness run.
enum KindExamples {
    /// The pipelines examples may be placed in, tried in this order.
    static let contexts = [
        "pipelines/honey-shops.yml", "pipelines/places.yml", "pipelines/attractions.yml", "pipelines/cities.yml",
        "pipelines/products.yml", "Fixtures/restaurants/restaurants.yml", "Fixtures/text-steps/shop-labels.yml",
        "Fixtures/contacts/contacts.yml",
    ]

    /// An example in its pipeline: the YAML, and where relative paths start.
    struct Placed {
        let context: String
        let yaml: String
        let baseDirectory: String

        func load() throws -> Pipeline {
            try Loader.load(
                yaml: yaml, file: baseDirectory + "/example-in-\(context.split(separator: "/").last!)",
                baseDirectory: baseDirectory)
        }
    }

    /// The pipeline the example loads in, or why it loads in none of them.
    static func place(_ spec: KindSpec) -> Result<Placed, ExampleError> {
        let candidates: [Placed]
        do {
            candidates = try placements(spec)
        } catch {
            return .failure(ExampleError(description: "\(spec.stage.rawValue): \(spec.name): \(error)"))
        }
        var failures: [String] = []
        for candidate in candidates {
            do {
                _ = try candidate.load()
                return .success(candidate)
            } catch {
                failures.append("in \(candidate.context): \(error)")
            }
        }
        if candidates.isEmpty { failures.append("no pipeline of \(contexts) has the collection it names") }
        return .failure(
            ExampleError(
                description: "the example of \(spec.stage.rawValue): \(spec.name) loads nowhere:\n"
                    + failures.joined(separator: "\n")))
    }

    struct ExampleError: Error, CustomStringConvertible {
        let description: String
    }

    static func placements(_ spec: KindSpec) throws -> [Placed] {
        let example = try Yams.compose(yaml: spec.example)
        if spec.stage == .ingest {
            guard let sources = example?.mapping else { return [] }
            let outputs: [Node] = sources.keys.compactMap(\.string).map { name in
                Node([(Node("file"), Node("\(name).json")), (Node("collection"), Node(name))])
            }
            let yaml = try serialize(name: "example", sources: example!, steps: [], outputs: outputs, limits: nil)
            return [Placed(context: "pipelines", yaml: yaml, baseDirectory: path("pipelines"))]
        }
        guard let items = example?.sequence, let first = items.first?.mapping else { return [] }
        var placed: [Placed] = []
        for context in contexts {
            let url = CLI.repoRoot.appendingPathComponent(context)
            guard let root = try Yams.compose(yaml: String(contentsOf: url, encoding: .utf8))?.mapping,
                let sources = root["sources"]?.mapping
            else { continue }
            let names = Set(sources.keys.compactMap(\.string))
            let base = url.deletingLastPathComponent().path
            let name = root["name"]?.string ?? "example"
            if spec.stage == .emit {
                let collections = items.compactMap { $0.mapping?["collection"]?.string }
                guard collections.allSatisfy(names.contains) else { continue }
                let files = Set(items.compactMap { $0.mapping?["file"]?.string })
                let kept = (root["outputs"]?.sequence.map(Array.init) ?? []).filter {
                    !files.contains($0.mapping?["file"]?.string ?? "")
                }
                let steps = root["steps"]?.sequence.map(Array.init) ?? []
                let yaml = try serialize(
                    name: name, sources: .mapping(sources), steps: steps, outputs: Array(items) + kept,
                    limits: root["limits"])
                placed.append(Placed(context: context, yaml: yaml, baseDirectory: base))
                continue
            }
            guard let collection = first["collection"]?.string, names.contains(collection) else { continue }
            // One output for each collection that needs one after the step.
            var written = sources.filter { $0.value.mapping?["reference"]?.bool != true }.compactMap(\.key.string)
            let kind = first[Node(spec.stage.rawValue)]?.string
            if kind == "append" { written.removeAll { $0 == collection } }
            if kind == "group-stats" || (kind == "unnest" && first["reference"]?.bool != true),
                let into = first["into"]?.string
            {
                written.append(into)
            }
            let outputs: [Node] = written.sorted().map { name in
                Node([(Node("file"), Node("\(name).json")), (Node("collection"), Node(name))])
            }
            let yaml = try serialize(
                name: name, sources: .mapping(sources), steps: [.mapping(first)], outputs: outputs,
                limits: root["limits"])
            placed.append(Placed(context: context, yaml: yaml, baseDirectory: base))
        }
        return placed
    }

    static func serialize(name: String, sources: Node, steps: [Node], outputs: [Node], limits: Node?) throws -> String {
        var pairs: [(Node, Node)] = [(Node("name"), Node(name)), (Node("sources"), sources)]
        if !steps.isEmpty { pairs.append((Node("steps"), Node(steps))) }
        pairs.append((Node("outputs"), Node(outputs)))
        if let limits { pairs.append((Node("limits"), limits)) }
        // Examples are run over dirty fixtures: rejects are expected, not a failed run.
        pairs.append((Node("thresholds"), Node([(Node("max-reject-fraction"), Node("1"))])))
        return try Yams.serialize(node: Node(pairs))
    }

    static func path(_ relative: String) -> String { CLI.repoRoot.appendingPathComponent(relative).path }
}
