import Foundation
import Testing

@testable import SeedForge

/// A json output written beside the pages of the same records (each record rendered once for
/// both): chosen from the definitions only, and its file and the pages byte for byte those
/// the two outputs write on their own, whatever the threads, the memory limit (records read
/// back in batches) and the order the pieces of pages are rendered in.
@Suite("Emit: a json output beside the pages of the same records")
struct PagesBesideTests {
    /// The pipeline's name and its one source, read from `cities.json`.
    static let source = """
        name: cities
        sources:
          cities:
            kind: json
            path: cities.json
            id: id
            fields: {id: integer, name: string, country: string, lat: number, lon: number}
        """

    static func pipeline(_ outputs: String) throws -> Pipeline {
        try Harness.load(
            """
            \(source)
            outputs:
            \(outputs)
            """, files: ["cities.json": "[]"])
    }

    static func pairs(_ outputs: String) throws -> [[Int]] {
        try PagesBeside.find(in: pipeline(outputs).outputs).map { [$0.pages, $0.json] }
    }

    static let city =
        "[country, name, {field: id, as: _id}, {field: lon, at: /coord/lon}, {field: lat, at: /coord/lat}]"

    @Test func aJSONOutputOfTheSameFieldsAndLayoutIsWrittenBesideThePages() throws {
        #expect(
            try Self.pairs(
                """
                  - {file: cities.json, collection: cities, fields: \(Self.city)}
                  - {file: pages, format: pages, collection: cities, size: 10, key: name, fields: \(Self.city)}
                """) == [[1, 0]])
        // Without `fields:` both write every field under its name; the first json is taken.
        #expect(
            try Self.pairs(
                """
                  - {file: pages, format: pages, collection: cities, size: 10, key: name}
                  - {file: a.json, collection: cities}
                  - {file: b.json, collection: cities}
                """) == [[0, 1]])
    }

    @Test func outputsWhoseElementsDifferAreWrittenOnTheirOwn() throws {
        // Other fields, another order, another layout of the same fields.
        #expect(
            try Self.pairs(
                """
                  - {file: cities.json, collection: cities, fields: [id, name]}
                  - {file: pages, format: pages, collection: cities, size: 10, key: name, fields: [id, name, country]}
                """
            ).isEmpty)
        #expect(
            try Self.pairs(
                """
                  - {file: cities.json, collection: cities, fields: [name, id]}
                  - {file: pages, format: pages, collection: cities, size: 10, key: name, fields: [id, name]}
                """
            ).isEmpty)
        #expect(
            try Self.pairs(
                """
                  - {file: cities.json, collection: cities, fields: [id, {field: name, as: title}]}
                  - {file: pages, format: pages, collection: cities, size: 10, key: name, fields: [id, name]}
                """
            ).isEmpty)
        // A filtered or rounded json, an ndjson (other elements).
        #expect(
            try Self.pairs(
                """
                  - {file: fr.json, collection: cities, where: {country: FR}}
                  - {file: pages, format: pages, collection: cities, size: 10, key: name}
                """
            ).isEmpty)
        #expect(
            try Self.pairs(
                """
                  - {file: cities.ndjson, collection: cities}
                  - {file: pages, format: pages, collection: cities, size: 10, key: name}
                """
            ).isEmpty)
    }

    /// 1,000 cities: pages of one (8 pieces of 128 files) and of 7 (pages cut across the
    /// batches of a spilled collection).
    static func cities() -> String {
        // As JSON text: a quote and a tab escaped.
        let names = ["Lviv", "Kyiv", "Ōsaka", "São Paulo", "Zürich", #"Quote \"q\""#, #"Tab\there"#]
        let cities = (0..<1000).map { index in
            #"{"id": \#(index), "name": "\#(names[index % names.count]) \#(index % 37)", "country": "C\#(index % 5)", "lat": \#(Double(index % 180) - 89.5), "lon": \#(index % 360 - 180)}"#
        }
        return "[" + cities.joined(separator: ",\n") + "]"
    }

    /// Runs the pipeline with `outputs` into `out` and returns the dataset's files but the manifest.
    static func run(_ dir: TempDir, _ outputs: String, out: String, _ options: [String]) throws -> [String: Data] {
        try dir.write(
            "cities.yml",
            """
            \(source)
            steps:
              - aggregate: sort
                collection: cities
                by: [name, id]
            outputs:
            \(outputs)
            """)
        let result = try CLI.run(["run", "cities.yml", "--out", out, "--quiet"] + options, cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        let root = URL(fileURLWithPath: dir.path + "/" + out + "/cities")
        var files: [String: Data] = [:]
        let names = try FileManager.default.subpathsOfDirectory(atPath: root.path)
        for name in names where !name.hasSuffix("manifest.json") {
            var folder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path, isDirectory: &folder),
                !folder.boolValue
            {
                files[name] = try Data(contentsOf: root.appendingPathComponent(name))
            }
        }
        return files
    }

    @Test(arguments: [
        ["--threads", "1"], ["--threads", "3"], ["--threads", "2", "--memory-limit", "4KiB"],
        ["--threads", "3", "--memory-limit", "64KiB"],
    ])
    func theJSONFileAndThePagesAreThoseEachWritesAlone(_ options: [String]) throws {
        let dir = try TempDir()
        try dir.write("cities.json", Self.cities())
        // A layout of objects (rendered with a frame) and one with an array (walked).
        let layouts = [Self.city, "[id, name, {field: lat, at: /at/0}, {field: lon, at: /at/1}, country]"]
        for fields in layouts {
            for size in [1, 7] {
                let json = "  - {file: cities.json, collection: cities, fields: \(fields)}"
                let pages =
                    "  - {file: pages, format: pages, collection: cities, size: \(size), key: name, fields: \(fields)}"
                #expect(try Self.pairs(json + "\n" + pages) == [[1, 0]])
                let both = try Self.run(dir, json + "\n" + pages, out: "both", options)
                let alone = try Self.run(dir, json, out: "json", options)
                    .merging(try Self.run(dir, pages, out: "pages", options)) { first, _ in first }
                let written = both.filter { !$0.key.hasSuffix(".ndjson") }
                #expect(written.count == 1000 / size + (1000 % size == 0 ? 0 : 1) + 2)
                for (name, bytes) in written {
                    #expect(alone[name] == bytes, "\(name), pages of \(size), \(fields)")
                }
            }
        }
    }

    /// The snapshot's lines rendered beside the pages (two threads: `SnapshotBeside.pays`),
    /// with the json beside them and a field only the csv writes rendered from the records,
    /// are the lines the snapshot renders alone (four threads), and every other file is the
    /// same too; the same with the collection spilled and read back in batches, and on one
    /// thread. A rerun over the dataset finds its snapshot written again: nothing changed.
    @Test func snapshotLinesBesideThePagesAreThoseRenderedAlone() throws {
        let dir = try TempDir()
        try dir.write("cities.json", Self.cities())
        let layout = "[name, {field: id, as: _id}, {field: lon, at: /coord/lon}, {field: lat, at: /coord/lat}]"
        let outputs = """
              - {file: cities.json, collection: cities, fields: \(layout)}
              - {file: pages, format: pages, collection: cities, size: 7, key: name, fields: \(layout)}
              - {file: cities.csv, collection: cities, fields: [id, name, country, lat, lon]}
            """
        let pipeline = try Self.pipeline(outputs)
        let cities = pipeline.collections[0]
        let carriedByPages = Set(PagesBeside.find(in: pipeline.outputs).map(\.json))
        let beside = try #require(
            SnapshotBeside.find(
                for: cities, in: pipeline, schema: pipeline.schemas[loaded: cities], leaving: carriedByPages))
        #expect(beside.output == 1)
        #expect(beside.sources.contains(.rendered(FieldID(index: 2))))  // country: only in the csv
        #expect(SnapshotBeside.pays(outputs: 3, threads: 2) && !SnapshotBeside.pays(outputs: 3, threads: 4))

        let alone = try Self.run(dir, outputs, out: "alone", ["--threads", "4"])
        #expect(alone["snapshot.ndjson"].map { $0.count > 1000 * 20 } == true)
        for options in [["--threads", "2"], ["--threads", "2", "--memory-limit", "4KiB"], ["--threads", "1"]] {
            let carried = try Self.run(dir, outputs, out: "carried", options)
            #expect(carried.keys.sorted() == alone.keys.sorted())
            for (name, bytes) in carried { #expect(alone[name] == bytes, "\(name), \(options)") }
        }
        let rerun = try CLI.run(
            ["run", "cities.yml", "--out", "carried", "--threads", "2", "--force", "--log-format", "json"],
            cwd: dir.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try dir.read("carried/cities/changes.ndjson") == "")
        let manifest = try dir.read("carried/cities/manifest.json")
        #expect(manifest.contains(#""added": 0"#) && manifest.contains(#""removed": 0"#))
    }

    /// Pieces handed over out of order are written in the order of their records; a gap is
    /// an internal failure, not a file cut short.
    @Test func piecesAreWrittenInTheOrderOfTheirRecords() throws {
        let dir = try TempDir()
        let path = dir.path + "/pieces"
        let file = StagedFile(fd: try OutputDirectory.create(path, name: "pieces"), path: path)
        let inOrder = InOrder(file: file, most: 8)
        inOrder.put(Array("c".utf8), records: 5..<9)
        inOrder.put(Array("b".utf8), records: 2..<5)
        inOrder.put(Array("a".utf8), records: 0..<2)
        inOrder.put(Array("d".utf8), records: 9..<10)
        try inOrder.finish(count: 10)
        _ = try file.finish()
        #expect(try dir.read("pieces") == "abcd")

        let gap = InOrder(file: file)
        gap.put(Array("x".utf8), records: 1..<2)
        #expect(throws: InternalFailure.self) { try gap.finish(count: 2) }
    }
}
