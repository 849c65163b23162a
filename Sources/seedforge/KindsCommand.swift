import ArgumentParser
import SeedForge

struct KindsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kinds",
        abstract:
            "List the source kinds, rules, normalisers, enrichers, aggregations and output formats, with their keys.",
        discussion: "Give a kind's name to see its keys and an example, e.g. `seedforge kinds range`.")

    @Argument(help: "Show only kinds with this name.")
    var name: String?

    func run() throws {
        let specs = Registry.allSpecs.filter { name == nil || $0.name == name }
        if specs.isEmpty {
            let names = Registry.allSpecs.map(\.name)
            let hint = Suggestion.nearest(to: name ?? "", in: names).map { "; did you mean '\($0)'?" } ?? ""
            StandardError.write("error: no kind named '\(name ?? "")'\(hint)\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        for spec in specs {
            print("\(spec.stage.rawValue): \(spec.name)\n  \(spec.summary)")
            if name != nil {
                for key in spec.keys {
                    print("    \(key.name)\(key.required ? " (required)" : ""): \(key.summary)")
                }
                print("  example:")
                for line in spec.example.split(separator: "\n", omittingEmptySubsequences: false) {
                    print("    \(line)")
                }
            }
        }
    }
}
