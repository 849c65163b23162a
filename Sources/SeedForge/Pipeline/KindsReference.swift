/// The README's "Kinds reference" section and its tables of the keys every source, step and
/// output takes, made from the registry's specs so that the README and `seedforge kinds`
/// cannot disagree. `seedforge kinds --markdown` prints the section; `make docs` writes the
/// README through `updated(readme:)`; a test checks the README is already so.
public enum KindsReference {
    /// The heading the section starts with; it runs to the next `## ` heading.
    public static let heading = "## Kinds reference"

    /// The whole section, from its heading to the end of its last entry (with a final new line).
    public static func markdown() -> String {
        var text = """
            \(heading)

            <!-- Made from each kind's spec by `seedforge kinds --markdown`; `make docs` rewrites this section. Edit the specs (the `spec` of each kind's file), not this text. -->

            `seedforge kinds NAME` prints a kind's entry in the terminal.

            """
        for stage in Stage.allCases {
            text += "\n### \(title(of: stage))\n\n\(shared(of: stage))\n\n"
            for spec in Registry.allSpecs where spec.stage == stage {
                text += entry(spec)
            }
        }
        return text
    }

    /// The README with every part made from the specs rewritten: the kinds reference
    /// section, and each table of the keys a stage's kinds share (`sharedKeysMarker`).
    public static func updated(readme: String) -> String {
        var lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The tables of shared keys: from a marker line to the first blank line after it.
        for stage in Stage.allCases {
            guard let start = lines.firstIndex(of: sharedKeysMarker(stage)) else { continue }
            let end = lines[(start + 1)...].firstIndex(of: "") ?? lines.endIndex
            let table = sharedKeysTable(of: stage).split(separator: "\n").map(String.init)
            lines.replaceSubrange((start + 1)..<end, with: table)
        }
        // The kinds reference: from its heading to the next `## ` heading.
        if let start = lines.firstIndex(of: heading) {
            let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.endIndex
            // The section ends with a blank line (its text ends with a new line).
            let section = markdown().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.replaceSubrange(start..<end, with: section)
        }
        return lines.joined(separator: "\n")
    }

    /// The comment line above a table of the keys every kind of a stage takes (a stage
    /// whose kinds share only `collection` has none: validation's table covers steps).
    public static func sharedKeysMarker(_ stage: Stage) -> String {
        "<!-- keys every \(stage.rawValue) kind takes: made from the specs; `make docs` rewrites this table -->"
    }

    /// A table of the keys every kind of a stage takes: key, required, meaning.
    public static func sharedKeysTable(of stage: Stage) -> String {
        var table = "| key | required | meaning |\n|---|---|---|\n"
        for key in sharedKeys(of: stage) {
            let meaning = key.summary.replacingOccurrences(of: "|", with: "\\|")
            table += "| `\(key.name)` | \(key.required ? "yes" : "no") | \(meaning) |\n"
        }
        return table
    }

    /// One kind's entry: a bullet with its summary, its own keys, its details and example.
    public static func entry(_ spec: KindSpec) -> String {
        var text = "- **`\(spec.name)`**: \(spec.summary)\n"
        let own = ownKeys(of: spec)
        if !own.isEmpty {
            text += "\n"
            for key in own {
                text += "  - `\(key.name)`\(key.required ? " (required)" : ""): \(key.summary)\n"
            }
        }
        if !spec.details.isEmpty {
            text += "\n" + indented(spec.details) + "\n"
        }
        text += "\n  ```yaml\n" + indented(spec.example) + "\n  ```\n"
        return text
    }

    /// The keys of a kind that are not the ones every kind of its stage takes (those are
    /// documented once, in the section `shared(of:)` links to). A kind that gives a shared
    /// key its own meaning (an html source's `fields`) lists it.
    public static func ownKeys(of spec: KindSpec) -> [KeySpec] {
        let common = sharedKeys(of: spec.stage)
        return spec.keys.filter { key in !common.contains { $0.name == key.name && $0.summary == key.summary } }
    }

    /// The keys every kind of a stage takes.
    public static func sharedKeys(of stage: Stage) -> [KeySpec] {
        switch stage {
        case .ingest: return SourceKeys.common
        case .validate: return ValidateStep.commonKeys
        case .normalize, .enrich, .aggregate: return [CommonKeys.collection]
        case .emit: return OutputKeys.common + [OutputKeys.filter]
        }
    }

    static func title(of stage: Stage) -> String {
        switch stage {
        case .ingest: return "Ingest (source kinds)"
        case .validate: return "Validate (rules)"
        case .normalize: return "Normalize"
        case .enrich: return "Enrich"
        case .aggregate: return "Aggregate"
        case .emit: return "Emit (output formats)"
        }
    }

    static func shared(of stage: Stage) -> String {
        let names = sharedKeys(of: stage).map { "`\($0.name)`" }.joined(separator: ", ")
        switch stage {
        case .ingest:
            return "Every source also takes \(names): see [Sources](#sources)."
        case .validate:
            return "Every rule also takes \(names): see [Steps](#steps)."
        case .normalize, .enrich, .aggregate:
            return "Every step also takes \(names): see [Steps](#steps)."
        case .emit:
            let names = OutputKeys.common.map { "`\($0.name)`" }.joined(separator: ", ")
            return
                "Every output also takes \(names), and all but `pages` and `prefix-index` take `where`: see [Outputs](#outputs)."
        }
    }

    /// Text inside a list item: every line but blank ones indented by two spaces.
    static func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "  " + $0 }
            .joined(separator: "\n")
    }
}
