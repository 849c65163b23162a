/// The side outputs every run writes beside its datasets, one JSON object per line:
/// `rejects.ndjson` (records set aside, with every finding), `duplicates.ndjson` (records
/// removed as duplicates, with the winner's id) and `warnings.ndjson`. Each is handed to
/// `write` about a megabyte at a time, never rendered whole.
enum SideOutputs {
    static let rejectsFile = "rejects.ndjson"
    static let duplicatesFile = "duplicates.ndjson"
    static let warningsFile = "warnings.ndjson"
    static let manifestFile = "manifest.json"
    /// What changed since the previous dataset (see `Changes`).
    static let changesFile = "changes.ndjson"
    static let reserved = [rejectsFile, duplicatesFile, warningsFile, changesFile, Snapshot.file, manifestFile]

    static func findingObject(_ finding: Finding, _ paths: InputFiles) -> JSONObject {
        var object = JSONObject()
        object.appendUnchecked("rule", .string(finding.rule.rawValue))
        object.appendUnchecked("severity", .string(finding.severity.rawValue))
        object.appendUnchecked("message", .string(finding.message))
        object.appendUnchecked("file", finding.location.map { .string(paths.datasetPath(of: $0)) } ?? .null)
        object.appendUnchecked("line", finding.location.map { .int(Int64($0.line)) } ?? .null)
        object.appendUnchecked("column", finding.location.map { .int(Int64($0.column)) } ?? .null)
        object.appendUnchecked("pointer", finding.location.map { .string($0.pointer) } ?? .null)
        object.appendUnchecked("field", finding.field.map(Value.string) ?? .null)
        object.appendUnchecked("value", truncated(finding.value ?? .null))
        return object
    }

    /// Long text values are cut to 500 characters in findings (the full record is kept
    /// under "record").
    static func truncated(_ value: Value) -> Value {
        if case .string(let text) = value, text.count > 500 { return .string(String(text.prefix(500)) + "…") }
        return value
    }

    /// Bytes rendered before they are handed on.
    static let piece = 1 << 20

    /// Entries whose lines are rendered at a time (`lines`).
    static let batch = 16_384

    /// Renders the lines of `count` entries (`render(index, &writer)`) on every core, a
    /// batch at a time while the batch before is handed to `write`, in order: rendered on
    /// one thread, the rejects of the 20M-city job (113 MB) took 1.7 s at the run's end
    /// with the other core idle.
    static func lines(
        count: Int, threads: Threads, render: (Int, inout JSONWriter) -> Void, to write: ([UInt8]) throws -> Void
    ) throws {
        var ahead = RenderAhead<[UInt8]>(threads: threads)
        func written(_ pieces: [[UInt8]]) throws {
            for piece in pieces where !piece.isEmpty { try write(piece) }
        }
        var first = 0
        while first < count {
            let start = first
            let end = min(start + batch, count)
            try ahead.batch(
                end - start,
                render: { range in
                    var writer = JSONWriter()
                    for index in range { render(start + index, &writer) }
                    return writer.bytes
                }, write: written)
            first = end
        }
        try ahead.finish(write: written)
    }

    static func rejects(
        _ rejects: [Rejection], schemas: [CollectionID: Schema], paths: InputFiles, threads: Threads,
        to write: ([UInt8]) throws -> Void
    ) throws {
        try lines(
            count: rejects.count, threads: threads,
            render: { index, writer in
                let rejection = rejects[index]
                let primary = rejection.findings[0]
                var object = JSONObject()
                object.appendUnchecked("collection", .string(rejection.collection.name))
                object.appendUnchecked("id", rejection.id ?? .null)
                for (key, value) in findingObject(primary, paths).pairs { object.appendUnchecked(key, value) }
                object.appendUnchecked("step", .string(rejection.step))
                object.appendUnchecked("findings", .array(rejection.findings.map { .object(findingObject($0, paths)) }))
                if let record = rejection.record, let schema = schemas[rejection.collection] {
                    let fields = schema.fields.filter { $0.sourcePath != nil }
                    object.appendUnchecked(
                        "record", record.object(fields: fields, ids: fields.indices.map(FieldID.init(index:))))
                } else {
                    object.appendUnchecked("record", .null)
                }
                writer.write(.object(object))
                writer.append(byte: 0x0A)
            }, to: write)
    }

    /// One line of `duplicates.ndjson`, with its line break.
    static func render(_ duplicate: Duplicate, paths: InputFiles, into writer: inout JSONWriter) {
        let location = duplicate.record.origin.location
        var object = JSONObject()
        object.appendUnchecked("collection", .string(duplicate.collection.name))
        object.appendUnchecked("id", duplicate.id ?? .null)
        object.appendUnchecked("key", duplicate.key)
        object.appendUnchecked("winner", duplicate.winnerID ?? .null)
        object.appendUnchecked("file", .string(paths.datasetPath(of: location)))
        object.appendUnchecked("line", .int(Int64(location.line)))
        object.appendUnchecked("column", .int(Int64(location.column)))
        object.appendUnchecked("pointer", .string(location.pointer))
        object.appendUnchecked("winnerFile", .string(paths.datasetPath(of: duplicate.winnerLocation)))
        object.appendUnchecked("winnerLine", .int(Int64(duplicate.winnerLocation.line)))
        object.appendUnchecked("step", .string(duplicate.step))
        if let km = duplicate.distanceKm { object.appendUnchecked("distanceKm", .double(km)) }
        if !duplicate.filled.isEmpty {
            object.appendUnchecked("filled", .array(duplicate.filled.map(Value.string)))
        }
        writer.write(.object(object))
        writer.append(byte: 0x0A)
    }

    static func warnings(
        _ warnings: [Warning], paths: InputFiles, threads: Threads, to write: ([UInt8]) throws -> Void
    ) throws {
        try lines(
            count: warnings.count, threads: threads,
            render: { index, writer in
                let warning = warnings[index]
                var object = JSONObject()
                object.appendUnchecked("collection", .string(warning.collection.name))
                object.appendUnchecked("id", warning.id ?? .null)
                for (key, value) in findingObject(warning.finding, paths).pairs { object.appendUnchecked(key, value) }
                object.appendUnchecked("step", .string(warning.step))
                writer.write(.object(object))
                writer.append(byte: 0x0A)
            }, to: write)
    }
}
