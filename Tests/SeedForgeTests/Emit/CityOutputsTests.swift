import Foundation
import GRDB
import Testing

@testable import SeedForge

/// Pages, the prefix index, SQLite and `seedforge query` on a dataset of five cities.
@Suite("Emit and query: pages, prefix index, SQLite")
struct CityOutputsTests {
    static let pipeline = """
        name: five
        sources:
          cities:
            kind: json
            path: cities.json
            id: id
            fields: {id: integer, name: string, country: string}
        steps:
          - {normalize: search-key, collection: cities, from: name, field: searchKey}
          - aggregate: sort
            collection: cities
            by: [{field: searchKey, collation: exact}, country, id]
        outputs:
          - {file: cities.json, collection: cities}
          - {file: pages, format: pages, collection: cities, size: 2, key: searchKey}
          - {file: index, format: prefix-index, collection: cities, key: searchKey, pages: pages, display: [name, country]}
          - {file: cities.sqlite, collection: cities, index: [searchKey], full-text: [name]}
        """

    static let cities = """
        [{"id": 5, "name": "Sydney", "country": "AU"}, {"id": 4, "name": "Arizona", "country": "US"},
         {"id": 3, "name": "Anaheim", "country": "US"}, {"id": 2, "name": "Albuquerque", "country": "US"},
         {"id": 1, "name": "Alabama", "country": "US"}]
        """

    static func dataset() throws -> TempDir {
        let dir = try TempDir()
        try dir.write("five.yml", pipeline)
        try dir.write("cities.json", cities)
        let result = try CLI.run(["run", "five.yml", "--out", "out"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        return dir
    }

    @Test func prefixSearchAnswersTheAppsExamples() throws {
        let dir = try Self.dataset()
        let query = try PrefixQuery(folder: dir.path + "/out/five")
        func names(_ prefix: String) throws -> [String] {
            try query.search(prefix, limit: 100).map { query.displayLine($0.record) }
        }
        #expect(try names("A") == ["Alabama, US", "Albuquerque, US", "Anaheim, US", "Arizona, US"])
        #expect(try names("s") == ["Sydney, AU"])
        #expect(try names("Al") == ["Alabama, US", "Albuquerque, US"])
        #expect(try names("Alb") == ["Albuquerque, US"])
        #expect(try names("x").isEmpty)
        #expect(try names("ÁL") == ["Alabama, US", "Albuquerque, US"])
        #expect(try names("") == ["Alabama, US", "Albuquerque, US", "Anaheim, US", "Arizona, US", "Sydney, AU"])
        #expect(try query.search("", limit: 2, page: 3).map { query.displayLine($0.record) } == ["Sydney, AU"])
        #expect(try query.search("a", limit: 3, page: 2).map(\.position) == [3])
    }

    @Test func theQueryCommandPrintsTextOrJSON() throws {
        let dir = try Self.dataset()
        let text = try CLI.run(["query", "out/five", "al"], cwd: dir.path)
        #expect(text.status == 0)
        #expect(text.stdout == "Alabama, US\nAlbuquerque, US\n")
        let json = try CLI.run(["query", "out/five", "an", "--format", "json"], cwd: dir.path)
        let records = try #require(jsonObject(Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(records.map { $0["name"] as? String } == ["Anaheim"])
        #expect(records.first?["searchKey"] as? String == "anaheim")
        let none = try CLI.run(["query", "out/five", "x"], cwd: dir.path)
        #expect(none.status == 0 && none.stdout.isEmpty)
        let notADataset = try CLI.run(["query", "nowhere", "a"], cwd: dir.path)
        #expect(notADataset.status == 2)
        #expect(notADataset.stderr.contains("not a seedforge dataset folder"))
        #expect(try CLI.run(["query", "out/five", "a", "--limit", "0"], cwd: dir.path).status == 2)
    }

    @Test func queriesSurviveHugePagesAndDamagedIndexes() throws {
        let dir = try Self.dataset()
        let huge = try CLI.run(
            ["query", "out/five", "", "--page", "9223372036854775807", "--limit", "2"], cwd: dir.path)
        #expect(huge.status == 0 && huge.stdout.isEmpty, "\(huge.stderr)")
        let wide = try CLI.run(
            ["query", "out/five", "a", "--page", "3", "--limit", "9223372036854775807"], cwd: dir.path)
        #expect(wide.status == 0 && wide.stdout.isEmpty)
        let deep = try CLI.run(["query", "out/five", "a", "--page", "2", "--limit", "3"], cwd: dir.path)
        #expect(deep.stdout == "Arizona, US\n")
        for damage in ["alabama\t99999999999999999999999\n", "alabama\t-5\n", "alabama 0\nsydney\t4\n", "\n"] {
            try dir.write("out/five/index/keys.tsv", damage)
            let result = try CLI.run(["query", "out/five", "al"], cwd: dir.path)
            #expect(result.status == 2, "\(damage.debugDescription): \(result.stderr)")
            #expect(result.stderr.contains("keys.tsv is damaged"), "\(result.stderr)")
        }
        try FileManager.default.removeItem(atPath: dir.path + "/out/five/index/meta.json")
        let missing = try CLI.run(["query", "out/five", "al"], cwd: dir.path)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("the prefix index of out/five is incomplete"))
    }

    @Test func prefixesAreNormalisedLikeKeys() throws {
        #expect(PrefixQuery.foldPrefix("  Novyi   S") == "novyi s")
        #expect(PrefixQuery.foldPrefix("New ") == "new ")
        #expect(PrefixQuery.foldPrefix("   ") == "")
        let folding = KeyFolding(apostrophes: .drop, punctuation: .space)
        #expect(PrefixQuery.foldPrefix("Farmers’ Mar", folding: folding) == "farmers mar")
        #expect(PrefixQuery.foldPrefix("St. Iv", folding: folding) == "st iv")
        #expect(PrefixQuery.foldPrefix("O'Hare", folding: KeyFolding(apostrophes: .drop)) == "ohare")
        #expect(PrefixQuery.foldPrefix("Saint-Malo", folding: KeyFolding(punctuation: .space)) == "saint malo")
        #expect(SearchKey.key(" Novyi \t Svit ") == "novyi svit")
    }

    @Test func nullKeysAreListedLastAndOnlyForTheEmptyPrefix() throws {
        let dir = try TempDir()
        try dir.write("five.yml", Self.pipeline)
        try dir.write(
            "cities.json",
            #"[{"id": 1, "name": "Alabama", "country": "US"}, {"id": 2, "country": "FR"}, {"id": 3, "name": "   ", "country": "DE"}]"#
        )
        let run = try CLI.run(["run", "five.yml", "--out", "out"], cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        let query = try PrefixQuery(folder: dir.path + "/out/five")
        #expect(try query.search("", limit: 10).map(\.position) == [0, 1, 2])
        #expect(try query.search("a", limit: 10).map(\.position) == [0])
        #expect(try query.search(" ", limit: 10).map(\.position) == [0, 1, 2])
    }

    @Test func keysOutOfOrderAreADataErrorNotAnInternalOne() throws {
        let dir = try TempDir()
        try dir.write(
            "five.yml",
            Self.pipeline.replacingOccurrences(
                of: "        outputs:",
                with: "          - {normalize: trim, collection: cities, field: searchKey}\n        outputs:"
            )
            .replacingOccurrences(
                of: "          - {normalize: search-key, collection: cities, from: name, field: searchKey}\n",
                with: "          - {normalize: search-key, collection: cities, from: name, field: searchKey}\n"))
        try dir.write("cities.json", Self.cities)
        let lint = try CLI.run(["lint", "five.yml"], cwd: dir.path)
        #expect(lint.status == 0, "\(lint.stderr)")
        // search-key keys are clean: the trim after the sort changes nothing, so the run is fine.
        #expect(try CLI.run(["run", "five.yml", "--out", "out"], cwd: dir.path).status == 0)
        try dir.write(
            "five.yml",
            Self.pipeline.replacingOccurrences(of: "key: searchKey, pages: pages", with: "key: name, pages: pages")
                .replacingOccurrences(
                    of: "by: [{field: searchKey, collation: exact}, country, id]",
                    with: "by: [{field: name, collation: exact}, country, id]"))
        try dir.write("cities.json", #"[{"id": 1, "name": "A\tB", "country": "US"}]"#)
        let tab = try CLI.run(["run", "five.yml", "--out", "out2"], cwd: dir.path)
        #expect(tab.status == 1)
        #expect(tab.stderr.contains("contains a tab or a line break"))
    }

    /// index.json is rendered as its pages are cut (no tree of values): its bytes are those
    /// `writePretty` of the whole index gave, a null key (sorted last) and no pages included.
    @Test func pagesIndexIsWrittenByteForByte() throws {
        let dir = try TempDir()
        try dir.write("five.yml", Self.pipeline)
        try dir.write(
            "cities.json",
            #"[{"id": 2, "name": "Ü\"x", "country": "US"}, {"id": 1, "country": "AU"}, {"id": 3, "name": "b", "country": "US"}]"#
        )
        #expect(try CLI.run(["run", "five.yml", "--out", "out"], cwd: dir.path).status == 0)
        let index = String(decoding: try dir.bytes("out/five/pages/index.json"), as: UTF8.self)
        #expect(
            index == """
                {
                  "total": 3,
                  "pageSize": 2,
                  "pageCount": 2,
                  "key": "searchKey",
                  "pages": [
                    {
                      "page": 1,
                      "file": "1.json",
                      "records": 2,
                      "first": "b",
                      "last": "u\\"x"
                    },
                    {
                      "page": 2,
                      "file": "2.json",
                      "records": 1,
                      "first": null,
                      "last": null
                    }
                  ]
                }

                """)
        try dir.write("cities.json", "[]")
        #expect(try CLI.run(["run", "five.yml", "--out", "none"], cwd: dir.path).status == 0)
        #expect(
            String(decoding: try dir.bytes("none/five/pages/index.json"), as: UTF8.self)
                == "{\n  \"total\": 0,\n  \"pageSize\": 2,\n  \"pageCount\": 0,\n  \"key\": \"searchKey\",\n  \"pages\": []\n}\n"
        )
    }

    @Test func pagesHaveAnIndexWithFirstAndLastKeys() throws {
        let dir = try Self.dataset()
        let index = try #require(jsonObject(dir.bytes("out/five/pages/index.json")) as? [String: Any])
        #expect(index["total"] as? Int == 5)
        #expect(index["pageCount"] as? Int == 3)
        let pages = try #require(index["pages"] as? [[String: Any]])
        #expect(pages.map { $0["first"] as? String } == ["alabama", "anaheim", "sydney"])
        #expect(pages.map { $0["last"] as? String } == ["albuquerque", "arizona", "sydney"])
        let third = try #require(jsonObject(dir.bytes("out/five/pages/3.json")) as? [[String: Any]])
        #expect(third.map { $0["name"] as? String } == ["Sydney"])
        let keys = try dir.read("out/five/index/keys.tsv")
        #expect(keys == "alabama\t0\nalbuquerque\t1\nanaheim\t2\narizona\t3\nsydney\t4\n")
    }

    @Test func theSQLiteFileHasTheTableIndexAndFullTextSearch() throws {
        let dir = try Self.dataset()
        let queue = try DatabaseQueue(path: dir.path + "/out/five/cities.sqlite")
        try queue.read { db in
            #expect(
                try String.fetchAll(db, sql: "SELECT name FROM cities ORDER BY rowid") == [
                    "Alabama", "Albuquerque", "Anaheim", "Arizona", "Sydney",
                ])
            let plan = try String.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT * FROM cities WHERE searchKey >= 'al' AND searchKey < 'am'"
            ).joined()
            #expect(
                try Row.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN SELECT * FROM cities WHERE searchKey >= 'al' AND searchKey < 'am'"
                )
                .contains { ($0["detail"] as String?)?.contains("USING INDEX cities_searchKey") == true }, "\(plan)")
            #expect(
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT c.name FROM cities_fts f JOIN cities c ON c.rowid = f.rowid WHERE cities_fts MATCH 'sydney'"
                ) == ["Sydney"])
            #expect(try Int.fetchOne(db, sql: "SELECT typeof(id) = 'integer' FROM cities LIMIT 1") == 1)
        }
    }

    @Test func sqliteStoresEmptyNullAndNonASCIITextAsGiven() throws {
        let dir = try TempDir()
        try dir.write(
            "notes.yml",
            """
            name: notes
            sources:
              notes:
                kind: json
                path: notes.json
                id: id
                fields: {id: integer, note: string, place: string}
            outputs:
              - {file: notes.sqlite, collection: notes}
            """)
        try dir.write(
            "notes.json",
            #"[{"id": 1, "note": "", "place": "Zürich 🏔"}, {"id": 2, "note": null, "place": "a\tb"},"#
                + #" {"id": 3, "note": "x", "place": ""}]"#)
        let result = try CLI.run(["run", "notes.yml", "--out", "out"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        let queue = try DatabaseQueue(path: dir.path + "/out/notes/notes.sqlite")
        try queue.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, note, typeof(note) AS kind, place FROM notes ORDER BY rowid")
            #expect(rows.map { $0["id"] as Int } == [1, 2, 3])
            #expect(rows.map { $0["kind"] as String } == ["text", "null", "text"])
            #expect(rows.map { $0["note"] as String? } == ["", nil, "x"])
            #expect(rows.map { $0["place"] as String } == ["Zürich 🏔", "a\tb", ""])
        }
    }

    @Test func prefixIndexDigitsAndByteOrder() {
        for number in [0, 7, 10, 99, 232_558, 1_000_000_007, Int.max] {
            var bytes: [UInt8] = [0x41]
            PrefixIndexFormat.appendDecimal(number, to: &bytes)
            #expect(bytes == [0x41] + Array(String(number).utf8))
        }
        // "ab", "abc", "b", "" and "ab" again, one after another in one buffer.
        let bytes: [UInt8] = Array("ababcb".utf8) + Array("ab".utf8)
        let ab = 0..<2
        let abc = 2..<5
        let b = 5..<6
        let empty = 6..<6
        let ab2 = 6..<8
        #expect(PrefixIndexFormat.precedes(ab, abc, in: bytes))
        #expect(!PrefixIndexFormat.precedes(abc, ab, in: bytes))
        #expect(PrefixIndexFormat.precedes(abc, b, in: bytes))
        #expect(!PrefixIndexFormat.precedes(b, abc, in: bytes))
        #expect(PrefixIndexFormat.precedes(empty, ab, in: bytes))
        #expect(!PrefixIndexFormat.precedes(ab, empty, in: bytes))
        #expect(!PrefixIndexFormat.precedes(ab, ab2, in: bytes) && !PrefixIndexFormat.precedes(ab2, ab, in: bytes))
    }

    @Test func aPrefixIndexNeedsTheCollectionSortedByItsKey() {
        let errors = Harness.definitionErrors(
            Self.pipeline.replacingOccurrences(
                of: "by: [{field: searchKey, collation: exact}, country, id]", with: "by: [name, id]"),
            files: ["cities.json": "[]"])
        #expect(
            errors.first?.message.contains("prefix-index needs 'cities' sorted by 'searchKey' in byte order") == true,
            "\(errors)")
        let wrongPages = Harness.definitionErrors(
            Self.pipeline.replacingOccurrences(of: "pages: pages,", with: "pages: pagez,"), files: ["cities.json": "[]"]
        )
        #expect(
            wrongPages.first?.message.contains("no output has that file; did you mean 'pages'?") == true,
            "\(wrongPages)")
    }
}
