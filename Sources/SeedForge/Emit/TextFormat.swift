/// `format: text`: a plain-text report for people (the adventure log's "Text" export): a
/// title line with the record count, then one block per record, its heading field on a
/// line of its own and every other field with a value as `  name: value`, blocks separated
/// by a blank line. Null fields are left out (the JSON and CSV outputs keep them); arrays
/// are listed with commas (an empty one as `(none)`), objects written as compact JSON; a text value spanning lines
/// continues indented under its field, so every line of the report stays attributable.
public struct TextFormat: SingleFileFormat {
    public static let spec = KindSpec(
        stage: .emit, name: "text",
        summary: "A plain-text report: a title, then one block per record with its fields as `name: value` lines.",
        keys: OutputKeys.common + [
            OutputKeys.filter,
            KeySpec(
                "title", "the first line of the report (default: the collection's name); the record count is added"),
            KeySpec("heading", "the field written as each record's heading line (default: the first written field)"),
        ],
        details: #"""
            Written to a `.txt` file, for people. Each record is a block: its heading (or `(no NAME)`
            when null), then `  name: value` for every other field that has a value; null fields are
            left out, arrays are listed with commas (`(none)` when empty), objects are compact JSON,
            and a text value spanning lines continues indented under its field. Blocks are separated
            by a blank line.
            """#,
        example: """
            - file: places.txt
              collection: places
              fields: [name, category, rating, city, country]
              title: My places
              heading: name
            """)
    public static let extensions = ["txt"]

    let title: String
    let heading: FieldID?

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        title = try config.string("title") ?? collection.name
        if title.contains(where: \.isNewline) { throw config["title"]!.error("'title' must be one line") }
        heading = try config["heading"] == nil ? nil : plan.field(config, key: "heading", in: collection)
    }

    public func head(count: Int, fields: [FieldSpec]) -> [UInt8] {
        Array("\(title) (\(count) \(count == 1 ? "record" : "records"))\n".utf8)
    }

    public func render(_ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID], first: Bool) -> [UInt8] {
        var out = ""
        let headingID = heading ?? ids.first
        for record in records {
            out += "\n"
            if let headingID {
                out += Self.lines(
                    Self.text(record[headingID]) ?? "(no \(Self.name(of: headingID, fields: fields, ids: ids)))",
                    indent: "")
            }
            for (spec, id) in zip(fields, ids) where id != headingID {
                guard let value = Self.text(record[id]) else { continue }
                out += Self.lines("\(spec.name): \(value)", indent: "  ")
            }
        }
        return Array(out.utf8)
    }

    static func name(of id: FieldID, fields: [FieldSpec], ids: [FieldID]) -> String {
        zip(fields, ids).first { $0.1 == id }?.0.name ?? "heading"
    }

    /// The value as report text; nil for null.
    static func text(_ value: Value) -> String? {
        switch value {
        case .null: return nil
        case .string(let text): return text
        case .array(let items):
            return items.isEmpty ? "(none)" : items.map { text($0) ?? "null" }.joined(separator: ", ")
        default: return JSONWriter.compact(value)
        }
    }

    /// The text as lines at `indent`, continuation lines indented four more spaces.
    static func lines(_ text: String, indent: String) -> String {
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        var out = ""
        for (index, part) in parts.enumerated() {
            out += (index == 0 ? indent : indent + "    ") + part + "\n"
        }
        return out
    }
}
