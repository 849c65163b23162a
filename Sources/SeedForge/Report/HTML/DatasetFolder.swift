import Foundation

/// An emitted dataset folder read back for the HTML report: the manifest's accounting,
/// steps, outputs and timings, and the side outputs (`rejects.ndjson`,
/// `warnings.ndjson`, `duplicates.ndjson`, and `changes.ndjson` when a release
/// comparison wrote one). Everything comes from the folder's files alone.
public struct DatasetFolder: Sendable {
    public struct ReportError: ExitCoded, Sendable {
        public let message: String
        public var exitStatus: ExitStatus { .usage }
        public var description: String { "error: \(message)" }
    }

    /// One collection's line of the manifest's `accounting`.
    public struct Account: Sendable {
        public let collection: String
        public let read, received, emitted, reference, rejected, duplicates, appended: Int
        public let balanced: Bool
    }

    public struct Step: Sendable {
        public let step, collection: String
        public let recordsIn, recordsOut, rejected, duplicates, warnings: Int
        public var seconds: Double?
    }

    public struct Output: Sendable {
        public let file: String
        public let collection: String?
        public let format: String
        public let records, bytes, files: Int
        public var seconds: Double?
    }

    /// A line of rejects.ndjson or warnings.ndjson.
    public struct FindingLine: Sendable {
        public let collection, rule, severity, message: String
        public let id: Value
        public let file: String?
        public let line, column: Int?
        public let pointer, field, step: String?
        public let value: Value?
        /// Where the rejected record lay, when its fields as read hold coordinates.
        public let position: Position?
    }

    public struct Duplicate: Sendable {
        public let collection: String
        public let id, winner: Value
        public let file: String?
        public let line: Int?
    }

    /// A line of changes.ndjson: a record added, removed or changed since the previous
    /// release, with the fields that changed.
    public struct Change: Sendable {
        public let collection, change: String
        public let id: Value
        public let fields: [String]
    }

    public let path: String
    public let dataset: String
    public let description: String?
    public let toolVersion: String
    public let startedAt: String?
    public let seconds: Double?
    public let accounts: [Account]
    public let steps: [Step]
    public let outputs: [Output]
    public let rejects: [FindingLine]
    public let warnings: [FindingLine]
    public let duplicates: [Duplicate]
    /// Nil when the folder has no changes.ndjson.
    public let changes: [Change]?
    /// Collections the run could not compare with the previous dataset, with the reason
    /// (the manifest's `changes` section: a first run, no key...).
    public var notCompared: [(collection: String, reason: String)] = []

    public static func read(path: String) throws -> DatasetFolder {
        let folder = URL(fileURLWithPath: path)
        let manifestPath = folder.appendingPathComponent("manifest.json").path
        guard FileManager.default.fileExists(atPath: manifestPath) else {
            throw ReportError(message: "\(path) is not a seedforge dataset folder (no manifest.json)")
        }
        let manifest = try JSONFile.value(at: manifestPath)
        func text(_ value: Value?, _ key: String) -> String? { value?.member(key)?.string }
        func int(_ value: Value?, _ key: String) -> Int { value?.member(key)?.number.map { Int($0) } ?? 0 }
        guard case .object(let accounting)? = manifest.member("accounting"), let dataset = text(manifest, "dataset")
        else {
            throw ReportError(message: "\(manifestPath) is not a seedforge manifest (no dataset or accounting)")
        }
        let accounts = accounting.pairs.map { name, entry in
            Account(
                collection: name, read: int(entry, "read"), received: int(entry, "received"),
                emitted: int(entry, "emitted"), reference: int(entry, "reference"), rejected: int(entry, "rejected"),
                duplicates: int(entry, "duplicates"), appended: int(entry, "appended"),
                balanced: entry.member("balanced") == .bool(true))
        }
        let run = manifest.member("run")
        var steps = (manifest.member("steps")?.elements ?? []).map { entry in
            Step(
                step: text(entry, "step") ?? "", collection: text(entry, "collection") ?? "",
                recordsIn: int(entry, "in"), recordsOut: int(entry, "out"), rejected: int(entry, "rejected"),
                duplicates: int(entry, "duplicates"), warnings: int(entry, "warnings"))
        }
        // run.steps lists the same steps in the same order, with their seconds.
        let stepTimes = run?.member("steps")?.elements ?? []
        for index in steps.indices where index < stepTimes.count {
            steps[index].seconds = stepTimes[index].member("seconds")?.number
        }
        var outputs = (manifest.member("outputs")?.elements ?? []).map { entry in
            Output(
                file: text(entry, "file") ?? "", collection: text(entry, "collection"),
                format: text(entry, "format") ?? "", records: int(entry, "records"), bytes: int(entry, "bytes"),
                files: int(entry, "files"))
        }
        for entry in run?.member("outputs")?.elements ?? [] {
            if let index = outputs.firstIndex(where: { $0.file == text(entry, "file") }) {
                outputs[index].seconds = entry.member("seconds")?.number
            }
        }
        let rejects = try findings(folder.appendingPathComponent("rejects.ndjson").path)
        let warnings = try findings(folder.appendingPathComponent("warnings.ndjson").path)
        var duplicates: [Duplicate] = []
        let duplicatesPath = folder.appendingPathComponent("duplicates.ndjson").path
        if FileManager.default.fileExists(atPath: duplicatesPath) {
            try JSONFile.eachLine(of: duplicatesPath) { entry in
                duplicates.append(
                    Duplicate(
                        collection: text(entry, "collection") ?? "", id: entry.member("id") ?? .null,
                        winner: entry.member("winner") ?? .null, file: text(entry, "file"),
                        line: entry.member("line")?.number.map { Int($0) }))
            }
        }
        var changes: [Change]?
        let changesPath = folder.appendingPathComponent("changes.ndjson").path
        if FileManager.default.fileExists(atPath: changesPath) {
            var list: [Change] = []
            try JSONFile.eachLine(of: changesPath) { entry in
                let fields = (entry.member("fields")?.elements ?? []).compactMap { field in
                    field.string ?? text(field, "field")
                }
                // A run writes the record's key (`{"id": 707860}`): one field shows as its value.
                var id = entry.member("id") ?? .null
                if id.isNull, let key = entry.member("key") {
                    if case .object(let parts) = key, parts.count == 1 { id = parts.values[0] } else { id = key }
                }
                list.append(
                    Change(
                        collection: text(entry, "collection") ?? "", change: text(entry, "change") ?? "", id: id,
                        fields: fields))
            }
            changes = list
        }
        var read = DatasetFolder(
            path: path, dataset: dataset, description: text(manifest, "description"),
            toolVersion: text(manifest.member("tool"), "version") ?? "", startedAt: text(run, "startedAt"),
            seconds: run?.member("seconds")?.number, accounts: accounts, steps: steps, outputs: outputs,
            rejects: rejects, warnings: warnings, duplicates: duplicates, changes: changes)
        if case .object(let compared)? = manifest.member("changes") {
            for (collection, entry) in compared.pairs where entry.member("compared") == .bool(false) {
                read.notCompared.append((collection, text(entry, "reason") ?? "not compared"))
            }
        }
        return read
    }

    static func findings(_ path: String) throws -> [FindingLine] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        var lines: [FindingLine] = []
        try JSONFile.eachLine(of: path) { entry in
            func text(_ key: String) -> String? { entry.member(key)?.string }
            lines.append(
                FindingLine(
                    collection: text("collection") ?? "", rule: text("rule") ?? "", severity: text("severity") ?? "",
                    message: text("message") ?? "", id: entry.member("id") ?? .null, file: text("file"),
                    line: entry.member("line")?.number.map { Int($0) },
                    column: entry.member("column")?.number.map { Int($0) }, pointer: text("pointer"),
                    field: text("field"), step: text("step"), value: entry.member("value"),
                    position: entry.member("record").flatMap(Position.find)))
        }
        return lines
    }

    /// The output whose records the report profiles for a collection: a `json` or
    /// `ndjson` file holding every emitted record (one with a `where` filter holds
    /// fewer), else the largest such file.
    public func dataOutput(for collection: String) -> Output? {
        let candidates = outputs.filter {
            $0.collection == collection && ($0.format == "json" || $0.format == "ndjson")
        }
        let emitted = accounts.first { $0.collection == collection }?.emitted
        return candidates.first { $0.records == emitted } ?? candidates.max { $0.records < $1.records }
    }
}

/// Reading the report's JSON files with the project's one JSON reader.
enum JSONFile {
    static func value(at path: String) throws -> Value {
        let file = try bytes(path)
        var reader = JSONReader(bytes: file.buffer)
        do {
            reader.skipByteOrderMark()
            return try reader.readValue()
        } catch let error as JSONSyntaxError {
            let place = SourceText(displayPath: path, bytes: file).lineAndColumn(ofOffset: error.offset)
            throw DatasetFolder.ReportError(
                message: "\(Paths.display(path)):\(place.line):\(place.column): damaged: \(error.message)")
        }
    }

    /// Calls `body` with each non-blank line's value.
    static func eachLine(of path: String, _ body: (Value) throws -> Void) throws {
        let file = try bytes(path)
        let buffer = file.buffer
        var start = 0
        var lineNumber = 0
        while start < buffer.count {
            var end = start
            while end < buffer.count && buffer[end] != 0x0A { end += 1 }
            lineNumber += 1
            var reader = JSONReader(bytes: buffer, start: start, end: end)
            if reader.peek() != nil {
                do {
                    let value = try reader.readValue()
                    try body(value)
                } catch let error as JSONSyntaxError {
                    throw DatasetFolder.ReportError(
                        message:
                            "\(Paths.display(path)):\(lineNumber):\(error.offset - start + 1): damaged: \(error.message)"
                    )
                }
            }
            start = end + 1
        }
    }

    /// Calls `body` with each element of the top-level array (or each line of an NDJSON
    /// file), one at a time.
    static func eachRecord(of path: String, ndjson: Bool, _ body: (Value) -> Void) throws {
        if ndjson { return try eachLine(of: path, body) }
        let file = try bytes(path)
        var reader = JSONReader(bytes: file.buffer)
        do {
            reader.skipByteOrderMark()
            try reader.expect(UInt8(ascii: "["), "'[' (a JSON array of records)")
            var first = true
            while try reader.nextArrayElement(first: first) {
                first = false
                body(try reader.readValue())
            }
        } catch let error as JSONSyntaxError {
            let place = SourceText(displayPath: path, bytes: file).lineAndColumn(ofOffset: error.offset)
            throw DatasetFolder.ReportError(
                message: "\(Paths.display(path)):\(place.line):\(place.column): damaged: \(error.message)")
        }
    }

    static func bytes(_ path: String) throws -> FileBytes {
        do {
            return try FileBytes.read(path: path)
        } catch let error as IOFailure {
            throw DatasetFolder.ReportError(message: error.message)
        }
    }
}

extension Value {
    /// The value of `key` in an object.
    func member(_ key: String) -> Value? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var elements: [Value]? {
        if case .array(let array) = self { return array }
        return nil
    }
}
