import ArgumentParser
import Foundation
import SeedForge

struct KindsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kinds",
        abstract:
            "List the source kinds, rules, normalisers, enrichers, aggregations and output formats, with their keys.",
        discussion:
            "Give a kind's name to see its keys, details and an example, e.g. `seedforge kinds range`. `--markdown` prints the README's kinds reference (`make docs` writes it into README.md)."
    )

    @Argument(help: "Show only kinds with this name.")
    var name: String?

    @Flag(help: "Print the kinds reference as Markdown, as README.md holds it (with a name: that kind's entries).")
    var markdown = false

    @Option(
        help: ArgumentHelp(
            "With --markdown: print this README with its kinds reference and shared-key tables made anew (make docs).",
            valueName: "README.md"))
    var readme: String?

    func run() throws {
        let specs = Registry.allSpecs.filter { name == nil || $0.name == name }
        if specs.isEmpty {
            let names = Registry.allSpecs.map(\.name)
            let hint = Suggestion.nearest(to: name ?? "", in: names).map { "; did you mean '\($0)'?" } ?? ""
            StandardError.write("error: no kind named '\(name ?? "")'\(hint)\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        if let readme {
            guard markdown, name == nil else {
                StandardError.write("error: --readme goes with --markdown and no kind name\n")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
            let text: String
            do {
                text = try String(contentsOfFile: readme, encoding: .utf8)
            } catch {
                StandardError.write("error: cannot read \(readme): \(error.localizedDescription)\n")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
            print(KindsReference.updated(readme: text), terminator: "")
            return
        }
        if markdown {
            print(name == nil ? KindsReference.markdown() : specs.map(KindsReference.entry).joined(), terminator: "")
            return
        }
        for spec in specs {
            print("\(spec.stage.rawValue): \(spec.name)\n  \(spec.summary)")
            if name != nil {
                for key in spec.keys {
                    print("    \(key.name)\(key.required ? " (required)" : ""): \(key.summary)")
                }
                if !spec.details.isEmpty {
                    print("")
                    for line in spec.details.split(separator: "\n", omittingEmptySubsequences: false) {
                        print(line.isEmpty ? "" : "  \(line)")
                    }
                }
                print("  example:")
                for line in spec.example.split(separator: "\n", omittingEmptySubsequences: false) {
                    print("    \(line)")
                }
            }
        }
    }
}
