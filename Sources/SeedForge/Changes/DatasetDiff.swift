import Foundation

/// `seedforge diff OLD NEW`: the comparison a run makes with the dataset it replaces, for
/// any two dataset folders (each with the `snapshot.ndjson` its run wrote).
public enum DatasetDiff {
    /// A folder that cannot be compared (exit 2): not there, not a dataset, no snapshot.
    public struct InputError: ExitCoded, Sendable {
        public let message: String
        public var exitStatus: ExitStatus { .usage }
        public var description: String { "error: \(message)" }
    }

    public static func compare(old: String, new: String) throws -> Changes {
        ChangeComparison.compare(previous: .success(try snapshot(old)), current: try snapshot(new))
    }

    static func snapshot(_ folder: String) throws -> Snapshot {
        switch Snapshot.read(folder: folder) {
        case .success(let snapshot): return snapshot
        case .failure(.noDataset): throw InputError(message: "\(folder): no such dataset folder")
        case .failure(.noSnapshot):
            throw InputError(
                message:
                    "\(folder) has no \(Snapshot.file): not a dataset folder, or written by an older seedforge (run its pipeline again)"
            )
        case .failure(.unreadable(let why)):
            throw InputError(message: "\(folder)/\(Snapshot.file) cannot be read: \(why)")
        }
    }
}

/// How `seedforge diff` prints a comparison.
public enum DiffFormat: String, CaseIterable, Sendable {
    /// For people: a line per collection, then a line per record.
    case text
    /// The counts and every entry, for programs.
    case json
    /// A pull-request comment: a table of counts, the records in collapsed sections.
    case markdown
    /// GitHub Actions workflow commands: an annotation per collection.
    case github

    /// The comparison of `old` and `new` (as given), listing at most `maxRecords` records
    /// per collection (every count is always complete).
    public func render(_ changes: Changes, old: String, new: String, maxRecords: Int) -> String {
        switch self {
        case .text: return Self.text(changes, maxRecords: maxRecords)
        case .json: return Self.json(changes, old: old, new: new)
        case .markdown: return Self.markdown(changes, old: old, new: new, maxRecords: maxRecords)
        case .github: return Self.github(changes, new: new, maxRecords: maxRecords)
        }
    }

    /// `cities: +1 −1 ~1 (24 → 24 records)`, or why it was not compared.
    static func headline(_ collection: CollectionChanges) -> String {
        guard let reason = collection.notCompared else {
            return
                "\(collection.collection): \(collection.counts) (\(collection.previous) → \(collection.current) records)"
        }
        return "\(collection.collection): not compared: \(reason)"
    }

    /// `~ id=707860: name "Hurzuf" → "Gurzuf"`, `+ id=4: {...}`, `− id=2: {...}`.
    static func line(_ entry: ChangeEntry) -> String {
        switch entry.kind {
        case .added: return "+ \(entry.keyText): \(record(entry.record))"
        case .removed: return "\u{2212} \(entry.keyText): \(record(entry.record))"
        case .changed:
            return "~ \(entry.keyText): "
                + entry.fields.map { "\($0.field) \($0.old) → \($0.new)" }.joined(separator: ", ")
        }
    }

    static func record(_ values: [ChangeEntry.FieldValue]) -> String {
        "{" + values.map { "\"\($0.field)\":\($0.json)" }.joined(separator: ",") + "}"
    }

    /// The entries of each collection, at most `limit` of them, and how many were left out.
    static func entries(_ changes: Changes, _ collection: String, limit: Int) -> ([ChangeEntry], Int) {
        let all = changes.entries.filter { $0.collection == collection }
        return (Array(all.prefix(limit)), max(0, all.count - limit))
    }

    static func text(_ changes: Changes, maxRecords: Int) -> String {
        var out = ""
        for collection in changes.collections {
            out += headline(collection) + "\n"
            let (shown, more) = entries(changes, collection.collection, limit: maxRecords)
            for entry in shown { out += "  " + line(entry) + "\n" }
            if more > 0 { out += "  … and \(more) more (--max-records)\n" }
        }
        return out
    }

    static func json(_ changes: Changes, old: String, new: String) -> String {
        var writer = JSONWriter()
        writer.append("{\"old\":")
        writer.writeString(old)
        writer.append(",\"new\":")
        writer.writeString(new)
        writer.append(",\"differs\":\(changes.differs),\"collections\":")
        writer.write(changes.manifestValue())
        writer.append(",\"changes\":[")
        let lines = String(decoding: changes.ndjson(), as: UTF8.self).split(separator: "\n")
        writer.append(lines.joined(separator: ","))
        writer.append("]}\n")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Text inside a table cell: pipes escaped, line breaks as spaces, in code spans.
    static func cell(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
        let ticks = escaped.contains("`") ? "``" : "`"
        return "\(ticks)\(escaped)\(ticks)"
    }

    static func markdown(_ changes: Changes, old: String, new: String, maxRecords: Int) -> String {
        var out = "### Dataset changes: `\(old)` → `\(new)`\n\n"
        out += "| collection | added | removed | changed | unchanged | records |\n|---|---:|---:|---:|---:|---:|\n"
        for collection in changes.collections {
            if let reason = collection.notCompared {
                out +=
                    "| \(collection.collection) | | | | | not compared: \(reason.replacingOccurrences(of: "|", with: "\\|")) |\n"
            } else {
                out +=
                    "| \(collection.collection) | \(collection.added) | \(collection.removed) | \(collection.changed) | \(collection.unchanged) | \(collection.previous) → \(collection.current) |\n"
            }
        }
        for collection in changes.collections where collection.compared && collection.differs {
            let (shown, more) = entries(changes, collection.collection, limit: maxRecords)
            let count = collection.added + collection.removed + collection.changed
            out += "\n<details><summary>\(collection.collection): \(count) record\(count == 1 ? "" : "s")</summary>\n\n"
            if !shown.isEmpty {
                out += "| change | key | what |\n|---|---|---|\n"
                for entry in shown {
                    let what: String
                    switch entry.kind {
                    case .added, .removed: what = cell(record(entry.record))
                    case .changed:
                        what = entry.fields.map { "\(cell($0.field)): \(cell($0.old)) → \(cell($0.new))" }.joined(
                            separator: "<br>")
                    }
                    out += "| \(entry.kind.rawValue) | \(cell(entry.keyText)) | \(what) |\n"
                }
            }
            if more > 0 { out += "\n… and \(more) more.\n" }
            out += "\n</details>\n"
        }
        return out
    }

    /// A workflow command's message: `%`, CR and LF escaped as GitHub expects.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// A property of a workflow command (`title=`): also `:` and `,` escaped.
    static func property(_ text: String) -> String {
        escaped(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    static func github(_ changes: Changes, new: String, maxRecords: Int) -> String {
        var out = ""
        for collection in changes.collections {
            let file = property(new + "/" + Snapshot.file)
            if let reason = collection.notCompared {
                out +=
                    "::warning file=\(file),title=\(property("\(collection.collection) not compared"))::\(escaped(reason))\n"
                continue
            }
            guard collection.differs else { continue }
            let (shown, more) = entries(changes, collection.collection, limit: maxRecords)
            var message = headline(collection)
            for entry in shown { message += "\n" + line(entry) }
            if more > 0 { message += "\n… and \(more) more" }
            out +=
                "::notice file=\(file),title=\(property("\(collection.collection) \(collection.counts)"))::\(escaped(message))\n"
        }
        return out
    }
}
