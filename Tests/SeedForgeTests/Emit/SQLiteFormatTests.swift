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

    /// SQLite's page cache follows the memory limit (a sixteenth, 2 to 8 MiB), and the file
    /// does not depend on it: 60,000 rows whose table (3.7 MB) and name index outgrow a
    /// 2 MiB cache, whose index sort then spills to temporary files and merges them, are
    /// the same bytes as under the default limit's 8 MiB, where they sort in memory.
    @Test func theFileIsTheSameBytesUnderAnyCache() throws {
        #expect(SQLiteFormat.cacheKiB(memoryLimit: 4 << 10) == 2 << 10)
        #expect(SQLiteFormat.cacheKiB(memoryLimit: 16 << 20) == 2 << 10)
        #expect(SQLiteFormat.cacheKiB(memoryLimit: 64 << 20) == 4 << 10)
        #expect(SQLiteFormat.cacheKiB(memoryLimit: 12 << 30) == 8 << 10)
        let dir = try TempDir()
        try dir.write("places.yml", Self.pipeline)
        var generator = SplitMix64(state: 60)
        let rows = (1...60_000).map { id in
            let name = (0..<40).map { _ in Character(Unicode.Scalar(UInt8.random(in: 0x61...0x7A, using: &generator))) }
            return #"{"id": \#(id), "name": "\#(String(name))", "score": \#(id % 1000), "open": true, "tags": []}"#
        }
        try dir.write("places.json", "[" + rows.joined(separator: ",\n") + "]")
        var files: [Data] = []
        for options in [[], ["--memory-limit", "16MiB"]] {
            let result = try CLI.run(["run", "places.yml", "--out", "out", "--force"] + options, cwd: dir.path)
            #expect(result.status == 0, "\(result.stderr)")
            files.append(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/out/places/places.sqlite")))
        }
        #expect(files[0].count > 3 << 20)
        #expect(files[0] == files[1])
    }

    @Test func aStatementCarriesUpTo32RowsAndNoMoreThan999Values() {
        #expect(SQLiteFormat.rowsPerInsert(columns: 6) == 32)
        #expect(SQLiteFormat.rowsPerInsert(columns: 40) == 24)
        #expect(SQLiteFormat.rowsPerInsert(columns: 999) == 1)
        #expect(SQLiteFormat.rowsPerInsert(columns: 1500) == 1)
        #expect(SQLiteFormat.insertSQL(table: "t", columns: 2, rows: 2) == #"INSERT INTO "t" VALUES (?, ?), (?, ?)"#)
    }
}
