import ArgumentParser
import Foundation
import SeedForge

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write an HTML report of an emitted dataset: accounting, rejects, field profiles, map, timings.",
        discussion: """
            Reads the dataset folder alone (manifest.json, rejects.ndjson, warnings.ndjson, \
            duplicates.ndjson, changes.ndjson when present, and each collection's JSON or NDJSON \
            output) and writes one self-contained HTML file: inline CSS and SVG, no script, no \
            network, so it opens from a CI artefact or an e-mail attachment.

            Without --output the report is written beside the folder as FOLDER.html \
            (out/cities → out/cities.html); --output - writes it to standard output.

            Examples:
              seedforge report out/cities
              seedforge report out/honey-shops --output honey-shops-report.html
            """)

    @Argument(help: "The dataset folder (e.g. out/cities).")
    var dataset: String

    @Option(
        name: .long, help: "The HTML file to write (default: FOLDER.html beside the folder; - for standard output).")
    var output: String?

    @Flag(name: [.short, .long], help: "Print nothing but errors.")
    var quiet = false

    func run() throws {
        do {
            let target = output ?? DatasetReportFile.defaultPath(for: dataset)
            let bytes = try DatasetReportFile.write(folder: dataset, to: target)
            if !quiet && target != "-" { print("\(dataset): report written to \(target) (\(bytes) bytes)") }
        } catch let error as any ExitCoded {
            StandardError.write(error.description + "\n")
            throw ExitCode(error.exitStatus.rawValue)
        }
    }
}
