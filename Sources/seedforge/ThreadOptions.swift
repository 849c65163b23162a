import ArgumentParser
import SeedForge

/// `--threads` and `--memory-limit`, shared by the commands that run pipelines.
struct ThreadOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "The most threads to work on at once, in every stage (default: all cores). Outputs are the same for any value."
    )
    var threads: Int?

    @Option(
        name: .customLong("memory-limit"),
        help: ArgumentHelp(
            """
            Records held in memory before the oldest are written to disk and read back in batches \
            (e.g. 2GiB, 512MiB; default: the pipeline's limits.max-memory, else half the machine's memory). \
            Outputs are the same for any value.
            """, valueName: "size"))
    var memoryLimitText: String?

    /// The parsed `--memory-limit`, in bytes.
    var memoryLimit: Int? { memoryLimitText.flatMap(ByteSize.parse) }

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if let text = memoryLimitText {
            guard let bytes = ByteSize.parse(text), bytes >= 1 else {
                throw ValidationError(
                    "--memory-limit must be a size such as 2GiB, 512MiB or 1000000 (bytes), found '\(text)'")
            }
        }
    }
}
