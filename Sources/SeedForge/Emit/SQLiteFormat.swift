import Foundation
import GRDB
import GRDBSQLite

/// SQLite's marker for text it must copy (the Swift string is gone after the call).
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// `format: sqlite`: an SQLite database an app can bundle: one table with a column per
/// field (integer → INTEGER, number → REAL, string → TEXT, boolean → INTEGER 0/1, arrays
/// and objects → JSON TEXT), rows in dataset order (rowid = position + 1), an index per
/// field listed in `index`, and optionally an FTS5 full-text table over `full-text` fields
/// (`TABLE_fts`, external content, so `SELECT ... FROM cities_fts WHERE cities_fts MATCH ?`
/// joins back to the table by rowid). Written with GRDB.
public struct SQLiteFormat: OutputFormat {
    public static let spec = KindSpec(
        stage: .emit, name: "sqlite",
        summary: "An SQLite database: one table, indexes on chosen fields, optional FTS5 full-text search.",
        keys: OutputKeys.common + [
            OutputKeys.filter,
            KeySpec("table", "the table name (default: the collection name)"),
            KeySpec("index", "fields to index (one index each)"),
            KeySpec("full-text", "text fields for an FTS5 full-text table named TABLE_fts"),
        ],
        details: #"""
            One column per field (integer and boolean: INTEGER, number: REAL, string: TEXT, arrays
            and objects: JSON TEXT), rows in dataset order (`rowid` = position + 1). The `full-text`
            table has external content: join it to the table by `rowid`. Written with GRDB;
            byte-identical across runs.
            """#,
        example: """
            - file: cities.sqlite
              collection: cities
              index: [searchKey, country]
            """)
    public static let extensions = ["sqlite", "db", "sqlite3"]

    let table: String
    let indexed: [String]
    let fullText: [String]

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        table = try config.string("table") ?? collection.name
        guard table.range(of: "^[A-Za-z_][A-Za-z0-9_]*$", options: .regularExpression) != nil else {
            throw (config["table"] ?? config.node).error(
                "table name '\(table)' must be letters, digits and '_' (not starting with a digit)")
        }
        let schema = plan.schema(collection)
        indexed =
            try config["index"] == nil ? [] : plan.fields(config, key: "index", in: collection).map { schema[$0].name }
        fullText =
            try config["full-text"] == nil
            ? [] : plan.fields(config, key: "full-text", in: collection).map { schema[$0].name }
        for field in schema.fields
        where field.name.range(of: "^[A-Za-z_][A-Za-z0-9_]*$", options: .regularExpression) == nil {
            throw config.error(
                "field '\(field.name)' cannot be an SQLite column name here (letters, digits and '_' only)")
        }
    }

    static func columnType(_ type: FieldType) -> String {
        switch type {
        case .integer, .boolean: return "INTEGER"
        case .number: return "REAL"
        case .decimal: return "TEXT"
        case .string, .array, .object: return "TEXT"
        case .any: return ""
        }
    }

    static func bind(_ value: Value, to statement: OpaquePointer, at index: Int32) {
        switch value {
        case .null: sqlite3_bind_null(statement, index)
        case .bool(let bool): sqlite3_bind_int64(statement, index, bool ? 1 : 0)
        case .int(let int): sqlite3_bind_int64(statement, index, int)
        case .double(let double): sqlite3_bind_double(statement, index, double)
        // Exact decimals stay exact: stored as their text (SQLite would round a REAL).
        case .decimal(let text): bindText(text, to: statement, at: index)
        case .string(let text): bindText(text, to: statement, at: index)
        case .array, .object: bindText(JSONWriter.compact(value), to: statement, at: index)
        }
    }

    static func bindText(_ text: String, to statement: OpaquePointer, at index: Int32) {
        if text.isEmpty {
            sqlite3_bind_text(statement, index, "", 0, transient)
            return
        }
        var text = text
        text.withUTF8 { bytes in
            _ = sqlite3_bind_text(
                statement, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
                Int32(bytes.count), transient)
        }
    }

    public func write(_ records: OutputRecords, fields: [FieldSpec], ids: [FieldID], into out: OutputWriter) throws {
        let path = try out.stagingPath()
        try? FileManager.default.removeItem(atPath: path)
        var configuration = Configuration()
        configuration.journalMode = .default
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF")
                try db.execute(sql: "PRAGMA synchronous = OFF")
                try db.inTransaction {
                    let columns = fields.map {
                        "\"\($0.name)\" \(Self.columnType($0.type))".trimmingCharacters(in: .whitespaces)
                    }
                    try db.execute(sql: "CREATE TABLE \"\(table)\" (\(columns.joined(separator: ", ")))")
                    let placeholders = Array(repeating: "?", count: fields.count).joined(separator: ", ")
                    let insert = try db.makeStatement(sql: "INSERT INTO \"\(table)\" VALUES (\(placeholders))")
                    // Bound with SQLite's C API: one call per value, no per-row arrays.
                    let handle = insert.sqliteStatement
                    try records.forEach { _, record in
                        for (index, id) in ids.enumerated() { Self.bind(record[id], to: handle, at: Int32(index + 1)) }
                        let status = sqlite3_step(handle)
                        guard status == SQLITE_DONE else {
                            throw IOFailure(
                                "cannot write \(out.file): \(String(cString: sqlite3_errmsg(db.sqliteConnection)))")
                        }
                        sqlite3_reset(handle)
                    }
                    for field in indexed {
                        try db.execute(sql: "CREATE INDEX \"\(table)_\(field)\" ON \"\(table)\"(\"\(field)\")")
                    }
                    if !fullText.isEmpty {
                        let list = fullText.map { "\"\($0)\"" }.joined(separator: ", ")
                        try db.execute(
                            sql:
                                "CREATE VIRTUAL TABLE \"\(table)_fts\" USING fts5(\(list), content='\(table)', content_rowid='rowid')"
                        )
                        try db.execute(sql: "INSERT INTO \"\(table)_fts\"(\"\(table)_fts\") VALUES('rebuild')")
                    }
                    return .commit
                }
            }
            try queue.close()
        } catch let error as DatabaseError {
            throw IOFailure("cannot write \(out.file): \(error.message ?? "\(error)")")
        }
        try out.recordWritten()
    }
}
