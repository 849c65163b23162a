import Foundation

/// What a run read, wrote and set aside, written as `manifest.json` beside the dataset.
/// Everything but the `run` section is deterministic: the same inputs and definition give
/// the same bytes. Timings and the start time live only under `run`.
struct Manifest {
    struct Input {
        let collection: CollectionID
        let file: String
        let sha256: String
        let bytes: Int
        let records: Int
        /// The file's stamp when it was read (only in the run section: it lets the next run
        /// see an untouched input without reading it); nil when it changed while read.
        var stamp: FileStamp? = nil
    }

    struct Output {
        let file: String
        let collection: CollectionID?
        let format: String
        let records: Int
        let sha256: String
        let bytes: Int
        /// Files written: 1, or more for folder formats such as pages.
        let files: Int
        /// Time spent writing it (reported only in the run section).
        var seconds: Double = 0
    }

    let pipeline: Pipeline
    let inputs: [Input]
    let outputs: [Output]
    let accounting: [CollectionAccount]
    let steps: [StepStat]
    let findings: [String: Int]
    let warnings: [String: Int]
    /// Sources read only in part (`on-missing-page: warn`); the key is absent when none.
    var incomplete: [IncompleteSource] = []
    let startedAt: Date
    let seconds: Double
    /// The run's thread budget, for the `run` section: what it allowed and the most
    /// threads that worked at once until the manifest was written.
    let threads: Threads
    /// What changed since the previous dataset (nil: not compared, as in tests).
    var changes: Changes? = nil
    /// Every budget checked, and whether the pipeline declares any.
    var budgets: [BudgetCheck] = []
    var budgetsDeclared = false
    /// Released over budget with `--accept-changes`.
    var accepted = false

    func render() -> [UInt8] {
        var root = JSONObject()
        root.appendUnchecked("dataset", .string(pipeline.name))
        root.appendUnchecked("description", pipeline.description.map(Value.string) ?? .null)
        root.appendUnchecked(
            "tool",
            .object(JSONObject([("name", .string("seedforge")), ("version", .string(SeedForgeVersion.current))])))
        root.appendUnchecked(
            "pipeline",
            .object(
                JSONObject([
                    ("file", .string((pipeline.file as NSString).lastPathComponent)),
                    ("sha256", .string(pipeline.fileSHA256)),
                ])))
        root.appendUnchecked(
            "inputs",
            .array(
                inputs.map { input in
                    .object(
                        JSONObject([
                            ("collection", .string(input.collection.name)), ("file", .string(input.file)),
                            ("sha256", .string(input.sha256)),
                            ("bytes", .int(Int64(input.bytes))), ("records", .int(Int64(input.records))),
                        ]))
                }))
        root.appendUnchecked(
            "outputs",
            .array(
                outputs.map { output in
                    .object(
                        JSONObject([
                            ("file", .string(output.file)),
                            ("collection", output.collection.map { .string($0.name) } ?? .null),
                            ("format", .string(output.format)), ("records", .int(Int64(output.records))),
                            ("bytes", .int(Int64(output.bytes))), ("files", .int(Int64(output.files))),
                            ("sha256", .string(output.sha256)),
                        ]))
                }))
        var accountingObject = JSONObject()
        for entry in accounting {
            var object = JSONObject([("read", .int(Int64(entry.read)))])
            if entry.received > 0 { object.appendUnchecked("received", .int(Int64(entry.received))) }
            object.appendUnchecked("emitted", .int(Int64(entry.emitted)))
            if entry.reference > 0 { object.appendUnchecked("reference", .int(Int64(entry.reference))) }
            object.appendUnchecked("rejected", .int(Int64(entry.rejected)))
            object.appendUnchecked("duplicates", .int(Int64(entry.duplicates)))
            if entry.appended > 0 { object.appendUnchecked("appended", .int(Int64(entry.appended))) }
            object.appendUnchecked("balanced", .bool(entry.balanced))
            accountingObject.appendUnchecked(entry.collection.name, .object(object))
        }
        root.appendUnchecked("accounting", .object(accountingObject))
        root.appendUnchecked(
            "steps",
            .array(
                steps.map { stat in
                    var object = JSONObject([
                        ("step", .string(stat.label)), ("collection", .string(stat.collection.name)),
                        ("in", .int(Int64(stat.recordsIn))), ("out", .int(Int64(stat.recordsOut))),
                        ("rejected", .int(Int64(stat.rejected))), ("duplicates", .int(Int64(stat.duplicates))),
                        ("warnings", .int(Int64(stat.warnings))),
                    ])
                    // Only steps that count what they rewrote (replace) have it.
                    if let changed = stat.changed { object.appendUnchecked("changed", .int(Int64(changed))) }
                    return .object(object)
                }))
        root.appendUnchecked("findings", counts(findings))
        root.appendUnchecked("warnings", counts(warnings))
        if !incomplete.isEmpty {
            root.appendUnchecked(
                "incomplete",
                .array(
                    incomplete.map { source in
                        .object(
                            JSONObject([
                                ("collection", .string(source.collection.name)), ("page", .string(source.page)),
                                ("missing", .string(source.missing)),
                            ]))
                    }))
        }
        if let changes { root.appendUnchecked("changes", changes.manifestValue()) }
        if budgetsDeclared || accepted {
            root.appendUnchecked(
                "budgets",
                .object(
                    JSONObject([
                        ("exceeded", .int(Int64(budgets.filter(\.exceeded).count))), ("accepted", .bool(accepted)),
                        ("checks", .array(budgets.map(\.manifestValue))),
                    ])))
        }
        root.appendUnchecked(
            "run",
            .object(
                JSONObject([
                    ("startedAt", .string(Timestamp.internetTime(secondsSince1970: startedAt.timeIntervalSince1970))),
                    ("seconds", .double((seconds * 1000).rounded() / 1000)),
                    (
                        "threads",
                        .object(
                            JSONObject([("budget", .int(Int64(threads.count))), ("peak", .int(Int64(threads.peak)))]))
                    ),
                    ("build", .string(SeedForgeVersion.build)),
                    (
                        "inputs",
                        .array(
                            inputs.compactMap { input in
                                input.stamp.map {
                                    .object(JSONObject([("file", .string(input.file)), ("stamp", .string($0.text))]))
                                }
                            })
                    ),
                    (
                        "steps",
                        .array(
                            steps.map { stat in
                                .object(
                                    JSONObject([
                                        ("step", .string(stat.label)), ("collection", .string(stat.collection.name)),
                                        ("seconds", .double((stat.seconds * 1e6).rounded() / 1e6)),
                                    ]))
                            })
                    ),
                    (
                        "outputs",
                        .array(
                            outputs.map { output in
                                .object(
                                    JSONObject([
                                        ("file", .string(output.file)),
                                        ("seconds", .double((output.seconds * 1e6).rounded() / 1e6)),
                                    ]))
                            })
                    ),
                ])))
        var writer = JSONWriter()
        writer.writePretty(.object(root))
        writer.append(byte: 0x0A)
        return writer.bytes
    }

    func counts(_ map: [String: Int]) -> Value {
        var object = JSONObject()
        for key in map.keys.sorted() { object.appendUnchecked(key, .int(Int64(map[key]!))) }
        return .object(object)
    }
}
