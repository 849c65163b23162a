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

    /// How many rows one `INSERT` statement carries for a table of `columns` columns: up to 32,
    /// and no more than 999 parameters (the least limit an SQLite build may have). A C loop
    /// over the shipped cities' 232,559 rows took 0.13 to 0.19 CPU s to insert them 16 to 128
    /// rows a statement against 0.29 to 0.42 s a row at a time, and wrote the same bytes: the
    /// rows go in in the same order under the same rowids.
    static func rowsPerInsert(columns: Int) -> Int { max(1, min(32, 999 / max(1, columns))) }

    /// `INSERT INTO "table" VALUES (?, ...), ...` for `rows` rows of `columns` values.
    static func insertSQL(table: String, columns: Int, rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return "INSERT INTO \"\(table)\" VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
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
                    // Up to 32 rows a statement; the rows a full statement does not take, one
                    // at a time at the end.
                    let perInsert = Self.rowsPerInsert(columns: fields.count)
                    let single = try db.makeStatement(
                        sql: Self.insertSQL(table: table, columns: fields.count, rows: 1))
                    let multiple =
                        perInsert > 1
                        ? try db.makeStatement(
                            sql: Self.insertSQL(table: table, columns: fields.count, rows: perInsert)) : single
                    var rows = BoundRows(ids: ids)
                    func insert(_ range: Range<Int>, with statement: Statement) throws {
                        let handle = statement.sqliteStatement
                        guard rows.step(range, with: handle) == SQLITE_DONE else {
                            throw IOFailure(
                                "cannot write \(out.file): \(String(cString: sqlite3_errmsg(db.sqliteConnection)))")
                        }
                        sqlite3_reset(handle)
                    }
                    let width = Record.prefetchWidth(ids)
                    try records.forEach(width: width) { _, record in
                        rows.append(record.row)
                        if rows.count == perInsert {
                            try insert(0..<perInsert, with: multiple)
                            rows.removeAll()
                        }
                    }
                    for row in 0..<rows.count { try insert(row..<row + 1, with: single) }
                    // The rows' text is gone: leave no binding pointing at it.
                    sqlite3_clear_bindings(single.sqliteStatement)
                    sqlite3_clear_bindings(multiple.sqliteStatement)
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

/// The values of a few rows, held for one `INSERT`: numbers as they are, text copied into
/// one buffer that stays in place while the statement steps, so that the rows' text is
/// bound without SQLite copying it (`SQLITE_STATIC`) and without holding the records.
struct BoundRows {
    enum Bound {
        case null
        case integer(Int64)
        case real(Double)
        /// UTF-8 at `text[start..<start + count]`.
        case text(start: Int, count: Int)
    }

    let ids: [FieldID]
    private var values: [Bound] = []
    private var text: [UInt8] = []

    init(ids: [FieldID]) { self.ids = ids }

    /// How many rows are held.
    var count: Int { ids.isEmpty ? 0 : values.count / ids.count }

    mutating func append(_ row: PackedRow) {
        for id in ids {
            let field = id.index
            switch row.tag(at: field) {
            case .null: values.append(.null)
            case .false: values.append(.integer(0))
            case .true: values.append(.integer(1))
            case .int: values.append(.integer(Int64(bitPattern: row.word(at: field))))
            case .double: values.append(.real(Double(bitPattern: row.word(at: field))))
            // Exact decimals stay exact: stored as their text (SQLite would round a REAL).
            case .string, .decimal: row.withText(at: field) { appendText($0) }
            case .array, .object:
                var json = JSONWriter.compact(row.value(at: field))
                json.withUTF8 { appendText($0) }
            }
        }
    }

    private mutating func appendText(_ bytes: UnsafeBufferPointer<UInt8>) {
        values.append(.text(start: text.count, count: bytes.count))
        text.append(contentsOf: bytes)
    }

    mutating func removeAll() {
        values.removeAll(keepingCapacity: true)
        text.removeAll(keepingCapacity: true)
    }

    /// Binds the values of the held rows `rows` to `statement`'s parameters in order (the
    /// first of them from parameter 1) and steps it.
    func step(_ rows: Range<Int>, with statement: OpaquePointer) -> Int32 {
        text.withUnsafeBufferPointer { buffer in
            // An empty buffer may have no address; SQLite needs one even for no bytes.
            let base =
                buffer.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(emptyText.utf8Start)
            var parameter: Int32 = 1
            for value in values[rows.lowerBound * ids.count..<rows.upperBound * ids.count] {
                switch value {
                case .null: sqlite3_bind_null(statement, parameter)
                case .integer(let number): sqlite3_bind_int64(statement, parameter, number)
                case .real(let number): sqlite3_bind_double(statement, parameter, number)
                case .text(let start, let count):
                    sqlite3_bind_text(
                        statement, parameter, (base + start).assumingMemoryBound(to: CChar.self), Int32(count), nil)
                }
                parameter += 1
            }
            return sqlite3_step(statement)
        }
    }
}
