import Foundation
import Testing

@testable import SeedForge

/// `InputFiles`: the run's one table of the files it read. The same files get the same
/// numbers whatever the thread count, and in the run that finishes a sharded run's
/// partials; side outputs name a file by the path the table gives (relative to the
/// pipeline's folder), for a file in a subfolder, a gzip file and a page found by a link.
@Suite("Pipeline: the run's table of input files")
struct InputFilesTests {
    static let pipeline = """
        name: t
        sources:
          shops:
            kind: json
            path: data/sub/*.json
            id: id
            fields: {id: {type: string, from: /id}, rating: {type: number, from: /rating}}
          archive:
            kind: json
            path: data/old.json.gz
            id: id
            fields: {id: {type: string, from: /id}, rating: {type: number, from: /rating}}
          nearby:
            kind: json
            path: pages/first.json
            records: /results
            next-page-token: /next_page_token
            id: id
            fields: {id: {type: string, from: /place_id}}
        outputs:
          - {file: shops.json, collection: shops}
          - {file: archive.json, collection: archive}
          - {file: nearby.json, collection: nearby}
        """

    /// A folder with the pipeline and its files: each JSON source has one record whose
    /// rating is not a number (a reject naming its file).
    static func folder() throws -> TempDir {
        let dir = try TempDir()
        try dir.write("pipeline.yml", pipeline)
        try dir.write("data/sub/a.json", #"[{"id": "a1", "rating": 4}, {"id": "a2", "rating": "x"}]"#)
        try dir.write("data/sub/b.json", #"[{"id": "b1", "rating": 5}]"#)
        try dir.write(
            "data/old.json.gz",
            bytes: try PaginatedSourceTests.gzip(#"[{"id": "o1", "rating": "y"}, {"id": "o2", "rating": 1}]"#))
        try dir.write("pages/first.json", NextPageTokenTests.page(["p1"], next: "T2"))
        try dir.write("pages/T2.json", NextPageTokenTests.page(["p2"], next: nil))
        return dir
    }

    /// What the table holds, file by file: place, dataset path and records booked.
    static func table(_ state: RunState) -> [String] {
        state.inputFiles.entries.enumerated().map { number, entry in
            "\(number) \(entry.place.source).\(entry.place.rank).\(entry.place.part) "
                + "\(entry.input?.file ?? "-") \(entry.input?.records ?? -1) \(entry.text.fileNumber)"
        }
    }

    static let expected = [
        "0 0.0.0 data/sub/a.json 2 0",
        "1 0.1.0 data/sub/b.json 1 1",
        "2 1.0.0 data/old.json.gz 2 2",
        "3 2.0.0 pages/first.json 1 3",
        "4 2.1.0 pages/T2.json 1 4",
    ]

    static func run(_ dir: TempDir, threads: Int) throws -> RunResult {
        try Runner.run(
            try Loader.load(path: dir.path + "/pipeline.yml"),
            options: RunOptions(outputRoot: dir.path + "/out-\(threads)", logger: Harness.silent, threads: threads))
    }

    @Test func filesAreNumberedInTheOrderReadWhateverTheThreadCount() throws {
        let dir = try Self.folder()
        for threads in [1, 3] {
            let result = try Self.run(dir, threads: threads)
            #expect(Self.table(result.state) == Self.expected, "threads \(threads)")
            #expect(
                result.state.inputFiles.inputs.map(\.file) == Self.expected.map { String($0.split(separator: " ")[2]) })
        }
    }

    @Test func findingsNameTheirFileByNumberAndSideOutputsByDatasetPath() throws {
        let dir = try Self.folder()
        let result = try Self.run(dir, threads: 2)
        let locations = result.state.rejects.compactMap { $0.findings[0].location }
        #expect(locations.map(\.fileNumber) == [0, 2])
        #expect(
            locations.map { result.state.inputFiles.datasetPath(of: $0) } == ["data/sub/a.json", "data/old.json.gz"])
        let rejects = try dir.read("out-2/t/rejects.ndjson")
        #expect(rejects.contains(#""file":"data/sub/a.json""#))
        #expect(rejects.contains(#""file":"data/old.json.gz""#))
        // A location no file of the run holds keeps the path it shows.
        let elsewhere = Location(file: "elsewhere.json", line: 1, column: 1, pointer: "")
        #expect(result.state.inputFiles.datasetPath(of: elsewhere) == "elsewhere.json")
    }

    @Test func theRunThatFinishesShardsNumbersFilesAsAPlainRun() throws {
        let dir = try Self.folder()
        let pipeline = try Loader.load(path: dir.path + "/pipeline.yml")
        let parts = try (0..<2).map { index in
            let path = dir.path + "/parts/\(index)"
            _ = try ShardRun.run(
                pipeline, shard: Shard(index: index, count: 2), partial: path,
                options: RunOptions(outputRoot: dir.path + "/unused", logger: Harness.silent, threads: 2))
            return path
        }
        let finished = try ShardRun.finish(
            pipeline, partials: parts.reversed(),
            options: RunOptions(outputRoot: dir.path + "/sharded", logger: Harness.silent, threads: 2))
        #expect(Self.table(finished.state) == Self.expected)
        #expect(finished.state.rejects.compactMap { $0.findings[0].location?.fileNumber } == [0, 2])
        _ = try Self.run(dir, threads: 1)
        for file in ["rejects.ndjson", "warnings.ndjson"] {
            #expect(try dir.read("sharded/t/\(file)") == dir.read("out-1/t/\(file)"), "\(file)")
        }
    }

    /// Partials of format 1 named a location's file by its shown path only, and those of
    /// format 3 held no dedupe begun in the shards: one is refused with a message that says
    /// which format this seedforge reads.
    @Test(arguments: [1, 3])
    func aPartialOfAnOlderFormatIsRefused(format: Int) throws {
        let dir = try Self.folder()
        let path = dir.path + "/part"
        _ = try ShardRun.run(
            try Loader.load(path: dir.path + "/pipeline.yml"), shard: Shard(index: 0, count: 1), partial: path,
            options: RunOptions(outputRoot: dir.path + "/unused", logger: Harness.silent, threads: 1))
        let file = URL(fileURLWithPath: path + "/partial.bin")
        var body = Array(try Data(contentsOf: file).dropLast(64))
        #expect(body[0] == UInt8(Partial.format << 1))  // the format as a zigzag varint
        body[0] = UInt8(format << 1)
        try Data(body + Array(SHA256.hex(body).utf8)).write(to: file)
        #expect {
            _ = try Partial.read(path)
        } throws: { error in
            "\(error)".contains("is a partial of format \(format); this seedforge reads format \(Partial.format)")
        }
    }
}
