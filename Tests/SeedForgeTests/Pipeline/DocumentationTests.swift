import Foundation
import Testing
import Yams

@testable import SeedForge

/// The README is the pipeline format's reference, and its kinds reference is made from the
/// specs `seedforge kinds` prints: it is exactly the generated text, every kind has its
/// entry, and every key of a kind is documented in that entry or in the section its stage
/// shares (source keys in "Sources", the keys every step takes in "Steps", output keys in
/// "Outputs"), not merely somewhere in the file; every kind's example loads.
@Suite("Documentation")
struct DocumentationTests {
    static let readme =
        (try? String(contentsOf: CLI.repoRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    /// The text of a `### heading` section, up to the next heading.
    static func section(_ heading: String) -> Substring {
        guard let start = readme.range(of: "\n### \(heading)\n") else { return "" }
        let rest = readme[start.upperBound...]
        let end = rest.range(of: "\n#")?.lowerBound ?? rest.endIndex
        return rest[..<end]
    }

    /// A kind's own entry in the kinds reference: from its `**`name`**` bullet under its
    /// stage's heading (a source and an output format may share a name: `csv`) to the next
    /// bullet or heading.
    static func entry(_ name: String, stage: Stage) -> Substring? {
        guard let reference = readme.range(of: "\n## Kinds reference\n") else { return nil }
        let heading = "\n### " + stage.rawValue.prefix(1).uppercased() + stage.rawValue.dropFirst()
        guard let section = readme[reference.upperBound...].range(of: heading) else { return nil }
        let kinds = readme[section.upperBound...]
        guard let start = kinds.range(of: "**`\(name)`**") else { return nil }
        let rest = kinds[start.upperBound...]
        let end =
            [rest.range(of: "\n- **`")?.lowerBound, rest.range(of: "\n#")?.lowerBound].compactMap { $0 }.min()
            ?? rest.endIndex
        return rest[..<end]
    }

    /// Where a key of a kind of this stage may be documented besides the kind's entry.
    static func shared(_ spec: KindSpec) -> [Substring] {
        switch spec.stage {
        case .ingest: return [section("Sources")] + (spec.name == "html" ? [section("HTML pages")] : [])
        case .emit: return [section("Outputs")]
        default: return [section("Steps")]
        }
    }

    /// Each kind as `stage:name` (a name alone may be a source's and an output format's).
    static let kindIDs = Registry.allSpecs.map { "\($0.stage.rawValue):\($0.name)" }

    static func spec(_ id: String) -> KindSpec? {
        Registry.allSpecs.first { "\($0.stage.rawValue):\($0.name)" == id }
    }

    @Test(arguments: kindIDs)
    func readmeDocumentsTheKindAndEachOfItsKeysWhereItBelongs(id: String) throws {
        let spec = try #require(Self.spec(id))
        let name = spec.name
        let entry = try #require(
            Self.entry(name, stage: spec.stage), "the kinds reference has no entry **`\(name)`** under \(spec.stage)")
        let places = [entry] + Self.shared(spec)
        for key in spec.keys {
            #expect(
                places.contains { $0.contains("`\(key.name)`") },
                "README documents key '\(key.name)' of \(spec.stage.rawValue): \(name) neither in its entry nor in the section its stage shares"
            )
        }
    }

    /// A kind's example uses only keys the kind has (a renamed key leaves no stale example).
    @Test(arguments: kindIDs)
    func theKindsExampleUsesOnlyItsOwnKeys(id: String) throws {
        let spec = try #require(Self.spec(id))
        let name = spec.name
        let node = try #require(try Yams.compose(yaml: spec.example), "example of \(name) is not YAML")
        // A source example is `NAME: {kind: ...}`; a step or output example a one-item list.
        let body: Node? = spec.stage == .ingest ? node.mapping?.values.first : node.sequence?.first
        let keys = try #require(body?.mapping?.keys.compactMap(\.string), "example of \(name) has no mapping of keys")
        // Besides its own keys: a source's `kind`, a step's stage key, an output's common keys.
        let common: [String] =
            switch spec.stage {
            case .ingest: ["kind"]
            case .emit: ["file", "format", "collection", "fields", "where"]
            default: [spec.stage.rawValue]
            }
        let allowed = Set(spec.keys.map(\.name) + common)
        for key in keys {
            #expect(allowed.contains(key), "example of \(name) uses '\(key)', which is not one of its keys")
        }
        if spec.stage == .ingest { #expect(body?.mapping?["kind"]?.string == name) }
        if [.validate, .normalize, .enrich, .aggregate].contains(spec.stage) {
            #expect(body?.mapping?[Node(spec.stage.rawValue)]?.string == name)
        }
    }

    /// The README's kinds reference is exactly the text the specs make, so the README,
    /// `seedforge kinds` and the code cannot disagree.
    @Test func theReadmesKindsReferenceIsMadeFromTheSpecs() throws {
        let readme = Self.readme
        let start = try #require(
            readme.range(of: "\n" + KindsReference.heading + "\n"), "README.md has no '\(KindsReference.heading)'")
        let rest = readme[readme.index(after: start.lowerBound)...]
        let end = rest.dropFirst(3).range(of: "\n## ")?.lowerBound ?? rest.endIndex
        let section = String(rest[..<end])
        let generated = KindsReference.markdown()
        let written = section.split(separator: "\n", omittingEmptySubsequences: false)
        let made = generated.split(separator: "\n", omittingEmptySubsequences: false)
        let first = zip(written, made).enumerated().first { $0.element.0 != $0.element.1 }.map {
            "first difference at line \($0.offset + 1) of the section:\n  README: \($0.element.0)\n  specs:  \($0.element.1)"
        }
        #expect(
            section == generated,
            """
            README.md's kinds reference is not what the kinds' specs make; edit the specs (each kind's `spec`), then run \
            `make docs` and commit README.md. \(first ?? "The lengths differ.")
            """)
    }

    /// The tables of the keys every source, rule and output takes ("Sources", "Steps",
    /// "Outputs") are made from the specs too: the README is exactly what `make docs` writes.
    @Test func theReadmeIsWhatMakeDocsWrites() throws {
        for stage in [Stage.ingest, .validate, .emit] {
            let marker = KindsReference.sharedKeysMarker(stage)
            #expect(Self.readme.contains(marker + "\n" + KindsReference.sharedKeysTable(of: stage)), "\(stage)")
        }
        #expect(
            KindsReference.updated(readme: Self.readme) == Self.readme,
            "README.md is not what the specs make: edit the specs, then run `make docs` and commit README.md")
    }

    /// `updated(readme:)` rewrites what is stale and leaves the rest as it was.
    @Test func makeDocsRewritesOnlyTheGeneratedParts() {
        let marker = KindsReference.sharedKeysMarker(.emit)
        let stale =
            "# T\n\nIntro.\n\n\(marker)\n| key | old |\n\nAfter.\n\n## Kinds reference\n\nold text\n\n## Next\n\nEnd.\n"
        let made = KindsReference.updated(readme: stale)
        #expect(
            made
                == "# T\n\nIntro.\n\n\(marker)\n\(KindsReference.sharedKeysTable(of: .emit))\nAfter.\n\n"
                + KindsReference.markdown() + "\n## Next\n\nEnd.\n")
        #expect(KindsReference.updated(readme: made) == made)
    }

    /// Every kind and every key says what it is, and every kind has an example.
    @Test func everyKindAndKeyIsDescribed() {
        for spec in Registry.allSpecs {
            let id = "\(spec.stage.rawValue): \(spec.name)"
            #expect(spec.summary.count >= 20, "\(id) has no summary worth the name: '\(spec.summary)'")
            #expect(!spec.example.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(id) has no example")
            #expect(Set(spec.keys.map(\.name)).count == spec.keys.count, "\(id) lists a key twice")
            for key in spec.keys {
                #expect(
                    !key.summary.isEmpty && key.summary != key.name, "key '\(key.name)' of \(id) has no description")
            }
        }
    }

    /// Every kind's example loads (as `lint` loads a pipeline) in a pipeline of the
    /// repository over its real fixtures: no example names a key, collection or field that
    /// does not exist.
    @Test(arguments: kindIDs)
    func theKindsExampleLoads(id: String) throws {
        let spec = try #require(Self.spec(id))
        if case .failure(let error) = KindExamples.place(spec) { Issue.record("\(error)") }
    }

    /// The `kind` key's help (in every source kind's `seedforge kinds` entry) names every
    /// source kind there is.
    @Test func theKindKeyNamesEverySourceKind() throws {
        let kind = try #require(SourceKeys.common.first { $0.name == "kind" })
        for source in Registry.sources {
            #expect(kind.summary.contains(source.spec.name), "'kind' help lacks \(source.spec.name)")
        }
    }

    /// The output `format` key's help names every output format there is.
    @Test func theFormatKeyNamesEveryOutputFormat() throws {
        let format = try #require(OutputKeys.common.first { $0.name == "format" })
        for output in Registry.formats {
            #expect(format.summary.contains(output.spec.name), "'format' help lacks \(output.spec.name)")
        }
    }

    @Test func readmeDocumentsTopLevelKeysLimitsAndExitCodes() throws {
        let readme = Self.readme
        // Every top-level key has a row in "Top-level keys", every limit a row in "Input limits".
        for key in Loader.topKeys {
            #expect(Self.section("Top-level keys").contains("| `\(key)` |"), "README lacks top-level key \(key)")
        }
        for key in InputLimits.keys {
            #expect(Self.section("Input limits").contains("| `\(key)` |"), "README lacks limit \(key)")
        }
        for code in [0, 1, 2, 3] { #expect(readme.contains("| \(code) |")) }
        #expect(readme.hasPrefix("# seedforge\n\n```sh\nmake run"))
    }
}
