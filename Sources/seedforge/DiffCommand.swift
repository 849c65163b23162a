import ArgumentParser
import Foundation
import SeedForge

extension DiffFormat: ExpressibleByArgument {}

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two dataset folders: records added, removed and changed, per collection.",
        discussion: """
            Compares OLD and NEW the way a run compares its dataset with the one it replaces: \
            from the snapshot.ndjson each run writes, matching records by each collection's \
            key and naming the changed fields with their old and new values.

            Formats: text (a line per collection and per record), json (counts and every \
            change), markdown (a pull-request comment), github (workflow annotations).

            Exit 0 when the datasets hold the same records, 1 when they differ (or a \
            collection cannot be compared), 2 for bad usage or a folder that is not a dataset.

            Examples:
              seedforge diff /srv/datasets/cities out/cities
              seedforge diff released/cities out/cities --format markdown > comment.md
            """)

    @Argument(help: "The older dataset folder (e.g. a released copy).")
    var old: String

    @Argument(help: "The newer dataset folder (e.g. out/cities).")
    var new: String

    @Option(name: .long, help: "text, json, markdown or github.")
    var format: DiffFormat = .text

    @Option(
        name: .customLong("max-records"),
        help: "List at most this many records per collection (text, markdown, github; counts are always complete).")
    var maxRecords = 100

    func validate() throws {
        guard maxRecords >= 0 else { throw ValidationError("--max-records must not be negative") }
    }

    func run() throws {
        let changes: Changes
        do {
            changes = try DatasetDiff.compare(old: old, new: new)
        } catch let error as any ExitCoded {
            StandardError.write(error.description + "\n")
            throw ExitCode(error.exitStatus.rawValue)
        }
        print(format.render(changes, old: old, new: new, maxRecords: maxRecords), terminator: "")
        if changes.differs { throw ExitCode(ExitStatus.dataFailed.rawValue) }
    }
}
