import Foundation
import GRDB
import Testing

@testable import SeedForge

/// The SQLite output inserts its rows several to a statement. The file must be the bytes
/// the same rows make inserted one at a time, in the same order, under the same rowids.
@Suite("Emit: SQLite rows several to a statement")
struct SQLiteFormatTests {
    /// 75 places: two full statements of 32 rows, 11 left over; text with quotes, non-ASCII,
    /// empty and null values, numbers, booleans and arrays.
    static func places() -> String {
        let rows = (1...75).map { id -> String in
            let name = id % 9 == 0 ? "null" : id % 10 == 0 ? "\"\"" : "\"Plac\\u00e9 \(id) \\\"n\(id % 4)\\\"\""
            let score = id % 7 == 0 ? "null" : "\(Double(id) / 8)"
            return #"{"id": \#(id), "name": \#(name), "score": \#(score), "open": \#(id % 2 == 0),"#
                + #" "tags": ["t\#(id % 3)", \#(id)]}"#
        }
        return "[" + rows.joined(separator: ",\n") + "]"
    }

    static let pipeline = """
        name: places
        sources:
          places:
            kind: json
            path: places.json
            id: id
            fields: {id: integer, name: string, score: number, open: boolean, tags: array}
        outputs:
          - {file: places.sqlite, collection: places, index: [name, score]}
        """

    /// The file the same rows make through GRDB one `INSERT` each, with the output's
    /// settings and statements otherwise.
    static func oneRowAStatement(_ rows: [Row], at path: String) throws {
        var configuration = Configuration()
        configuration.journalMode = .default
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = OFF")
            try db.execute(sql: "PRAGMA synchronous = OFF")
            try db.inTransaction {
                try db.execute(
                    sql:
                        #"CREATE TABLE "places" ("id" INTEGER, "name" TEXT, "score" REAL, "open" INTEGER, "tags" TEXT)"#
                )
                for row in rows {
                    try db.execute(
                        sql: #"INSERT INTO "places" VALUES (?, ?, ?, ?, ?)"#,
                        arguments: StatementArguments((0..<5).map { row[$0] as DatabaseValue }))
                }
                try db.execute(sql: #"CREATE INDEX "places_name" ON "places"("name")"#)
                try db.execute(sql: #"CREATE INDEX "places_score" ON "places"("score")"#)
                return .commit
            }
        }
        try queue.close()
    }

    @Test(arguments: [["--threads", "1"], ["--threads", "2", "--memory-limit", "4KiB"]])
    func theFileIsTheBytesOfOneRowAStatement(_ options: [String]) throws {
        let dir = try TempDir()
        try dir.write("places.yml", Self.pipeline)
        try dir.write("places.json", Self.places())
        let result = try CLI.run(["run", "places.yml", "--out", "out"] + options, cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        let written = dir.path + "/out/places/places.sqlite"
        let rows = try DatabaseQueue(path: written).read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM places ORDER BY rowid")
        }
        #expect(rows.count == 75)
        #expect(rows.map { $0["id"] as Int } == Array(1...75))
        #expect(rows[8]["name"] as String? == nil)
        #expect(rows[9]["name"] as String? == "")
        #expect(rows[74]["name"] as String? == "Placé 75 \"n3\"")
        #expect(rows[6]["score"] as Double? == nil)
        #expect(rows[74]["score"] as Double? == 9.375)
        #expect(rows[73]["open"] as Int == 1)
        #expect(rows[74]["tags"] as String == #"["t0",75]"#)

        let reference = dir.path + "/reference.sqlite"
        try Self.oneRowAStatement(rows, at: reference)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: written)) == Data(contentsOf: URL(fileURLWithPath: reference)))
    }

    @Test func aStatementCarriesUpTo32RowsAndNoMoreThan999Values() {
        #expect(SQLiteFormat.rowsPerInsert(columns: 6) == 32)
        #expect(SQLiteFormat.rowsPerInsert(columns: 40) == 24)
        #expect(SQLiteFormat.rowsPerInsert(columns: 999) == 1)
        #expect(SQLiteFormat.rowsPerInsert(columns: 1500) == 1)
        #expect(SQLiteFormat.insertSQL(table: "t", columns: 2, rows: 2) == #"INSERT INTO "t" VALUES (?, ?), (?, ?)"#)
    }
}
