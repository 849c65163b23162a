import Foundation
import GRDB
import GRDBSQLite

/// Where an empty text is bound (SQLite needs an address even for no bytes).
private let emptyText: StaticString = ""

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
    public var startsFirst: Bool { true }

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

    /// Binds the values of `ids[position...]` of a record's `row` to the statement's parameters
    /// `position + 1 ...`, then calls `step` while every bound text is still in reach: text
    /// is bound in place (`SQLITE_STATIC`), straight from the record's row, rather than
    /// made into a `String` and copied by SQLite for each value.
    static func bind(
        _ row: PackedRow, ids: [FieldID], from position: Int, to statement: OpaquePointer, step: () -> Int32
    ) -> Int32 {
        guard position < ids.count else { return step() }
        let index = Int32(position + 1)
        func next() -> Int32 { bind(row, ids: ids, from: position + 1, to: statement, step: step) }
        let field = ids[position].index
        switch row.tag(at: field) {
        case .null: sqlite3_bind_null(statement, index)
        case .false: sqlite3_bind_int64(statement, index, 0)
        case .true: sqlite3_bind_int64(statement, index, 1)
        case .int: sqlite3_bind_int64(statement, index, Int64(bitPattern: row.word(at: field)))
        case .double: sqlite3_bind_double(statement, index, Double(bitPattern: row.word(at: field)))
        // Exact decimals stay exact: stored as their text (SQLite would round a REAL).
        case .string, .decimal:
            return row.withText(at: field) { bindText($0, to: statement, at: index, then: next) }
        case .array, .object:
            var text = JSONWriter.compact(row.value(at: field))
            return text.withUTF8 { bindText($0, to: statement, at: index, then: next) }
        }
        return next()
    }

    /// Binds the text whose UTF-8 is `bytes` in place for as long as `body` runs.
    static func bindText(
        _ bytes: UnsafeBufferPointer<UInt8>, to statement: OpaquePointer, at index: Int32, then body: () -> Int32
    ) -> Int32 {
        // An empty buffer may have no address; SQLite needs one even for no bytes.
        let start = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(emptyText.utf8Start)
        sqlite3_bind_text(statement, index, start.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
        return body()
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
                    let width = Record.prefetchWidth(ids)
                    try records.forEach(width: width) { _, record in
                        let status = Self.bind(record.row, ids: ids, from: 0, to: handle) { sqlite3_step(handle) }
                        guard status == SQLITE_DONE else {
                            throw IOFailure(
                                "cannot write \(out.file): \(String(cString: sqlite3_errmsg(db.sqliteConnection)))")
                        }
                        sqlite3_reset(handle)
                    }
                    // The last row's text is gone: leave no binding pointing at it.
                    sqlite3_clear_bindings(handle)
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
