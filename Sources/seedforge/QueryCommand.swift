import ArgumentParser
import Foundation
import SeedForge

enum QueryFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Prefix search in an emitted dataset, from its files alone.",
        discussion: """
            Finds records whose key (e.g. the folded city name) starts with PREFIX, case- and \
            diacritic-insensitively, in dataset order, by binary search in the dataset's \
            prefix index. The dataset's pipeline needs a prefix-index output.

            Examples:
              seedforge query out/cities alb
              seedforge query out/cities "" --page 3 --limit 50 --format json
            """)

    @Argument(help: "The dataset folder (e.g. out/cities).")
    var dataset: String

    @Argument(help: "The prefix to look for; empty lists everything.")
    var prefix: String

    @Option(name: .long, help: "Results per page.")
    var limit = 20

    @Option(name: .long, help: "Which page of results (1 is the first).")
    var page = 1

    @Option(name: .long, help: "text (one line per result) or json (an array of records).")
    var format: QueryFormat = .text

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
        guard page >= 1 else { throw ValidationError("--page must be at least 1") }
    }

    func run() throws {
        do {
            let query = try PrefixQuery(folder: dataset)
            let matches = try query.search(prefix, limit: limit, page: page)
            switch format {
            case .text:
                for match in matches { print(query.displayLine(match.record)) }
            case .json:
                var writer = JSONWriter()
                writer.writePretty(.array(matches.map(\.record)))
                print(String(decoding: writer.bytes, as: UTF8.self))
            }
        } catch let error as any ExitCoded {
            StandardError.write(error.description + "\n")
            throw ExitCode(error.exitStatus.rawValue)
        } catch {
            StandardError.write("error: \(error)\n")
            throw ExitCode(ExitStatus.ioOrInternal.rawValue)
        }
    }
}
