import ArgumentParser

/// `--threads`, shared by the commands that run pipelines.
struct ThreadOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "The most threads to work on at once, in every stage (default: all cores). Outputs are the same for any value."
    )
    var threads: Int?

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
    }
}
