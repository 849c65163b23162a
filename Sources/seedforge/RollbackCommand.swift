import ArgumentParser
import Foundation
import SeedForge

struct RollbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Put the previous released dataset back (kept by `run --keep N`).",
        discussion: """
            Swaps the newest dataset kept in OUT/.history/NAME back into OUT/NAME in one step, \
            under the same lock runs take, and moves the dataset it replaces to \
            OUT/.NAME.rolled-back. Another rollback goes one release further back.

            Exit 0 when rolled back, 2 when there is no such dataset or nothing kept to go \
            back to, 3 for an I/O error or a lock not obtained in time.

            Example:
              seedforge rollback out/cities
            """)

    @Argument(help: "The dataset folder (e.g. out/cities).")
    var dataset: String

    @Option(
        name: .customLong("lock-timeout"), help: "Seconds to wait when a run of the same pipeline holds its lock.")
    var lockTimeout: Double = 600

    func run() throws {
        do {
            let done = try DatasetHistory.rollback(dataset: dataset, lockTimeout: lockTimeout) {
                StandardError.write("waiting for a run of \(dataset) to finish\n")
            }
            print(
                "\(dataset): rolled back to the dataset released \(done.restored); the replaced one is in \(done.replacedAt); \(done.remaining) older kept"
            )
        } catch let error as any ExitCoded {
            StandardError.write(error.description + "\n")
            throw ExitCode(error.exitStatus.rawValue)
        }
    }
}
