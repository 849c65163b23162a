import Foundation
import Synchronization
import Testing

@testable import SeedForge

@Suite("Emit: page files created ahead of a first run's outputs")
struct FilesAheadTests {
    /// Every file under `folder` (relative path → contents).
    static func files(_ folder: String) throws -> [String: String] {
        var found: [String: String] = [:]
        let root = URL(fileURLWithPath: folder)
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [:] }
        for case let url as URL in walk {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                found[String(url.path.dropFirst(root.path.count + 1))] = try String(contentsOf: url, encoding: .utf8)
            }
        }
        return found
    }

    /// Writes pages 1...`count` (their text `prefix` and the number) as the pages output
    /// does, opening the names `folder` holds reserved, removes the reserved ones it did not
    /// write and commits the dataset.
    @discardableResult
    static func writePages(_ count: Int, _ prefix: String, into folder: OutputDirectory) throws -> OutputWriter {
        let writer = OutputWriter(folder: folder, file: "pages", outputs: [], threads: 2)
        try writer.writeFiles(count) { index in ("\(index + 1).json", Array("\(prefix)\(index + 1)".utf8)) }
        try folder.removeUnwritten("pages", written: writer.written)
        try folder.commit()
        return writer
    }

    @Test func filesCreatedAheadAreWrittenInPlaceAndTheUnwrittenOnesRemoved() throws {
        let dir = try TempDir()
        let target = dir.url.appendingPathComponent("dataset")
        // Five pages estimated from the records read; three written (the rest were rejects).
        let ahead = FilesAhead(
            folder: try OutputDirectory(target: target, threads: 2),
            planned: [("pages", (1...5).map { "\($0).json" })])
        ahead.create()
        let reserved = ahead.stop()
        #expect(reserved == ["pages": Set((1...5).map { "\($0).json" })])
        #expect(try Self.files(ahead.folder.staging.path + "/pages").values.allSatisfy(\.isEmpty))
        var folder = ahead.folder
        folder.reserved = reserved
        let writer = try Self.writePages(3, "page ", into: folder)
        #expect(
            try Self.files(target.path) == [
                "pages/1.json": "page 1", "pages/2.json": "page 2", "pages/3.json": "page 3",
            ])
        #expect(writer.written.map(\.bytes) == [6, 6, 6])
    }

    @Test func moreFilesThanCreatedAheadAreCreatedByTheOutput() throws {
        let dir = try TempDir()
        let target = dir.url.appendingPathComponent("dataset")
        let ahead = FilesAhead(
            folder: try OutputDirectory(target: target, threads: 2), planned: [("pages", ["1.json", "2.json"])])
        ahead.create()
        var folder = ahead.folder
        folder.reserved = ahead.stop()
        try Self.writePages(4, "p", into: folder)
        #expect(try Self.files(target.path) == (1...4).reduce(into: [:]) { $0["pages/\($1).json"] = "p\($1)" })
    }

    @Test func aRunFailingAfterFilesWereCreatedAheadLeavesThePreviousDatasetAndNoStrayFiles() throws {
        let dir = try TempDir()
        let target = dir.url.appendingPathComponent("dataset")
        try OutputDirectory.commitDataset(at: target, file: "cities.json", text: "v1")
        let ahead = FilesAhead(
            folder: try OutputDirectory(target: target, threads: 2),
            planned: [("pages", (1...50).map { "\($0).json" })])
        ahead.create()
        #expect(try Self.files(ahead.folder.staging.path).count == 50)
        ahead.abandon()
        #expect(try Self.files(target.path) == ["cities.json": "v1"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["dataset"])
    }

    /// While the ingest goes on the pages are counted from the records read so far (a file
    /// at a time); after it, from the records it kept. Pages made for more records than the
    /// run keeps are handed over with the others, and the output removes those it does not
    /// write.
    @Test func pagesFollowTheRecordsReadThenTheCountAfterIngest() throws {
        let dir = try TempDir()
        let target = dir.url.appendingPathComponent("dataset")
        let cities = CollectionID("cities")
        let read = Mutex(0)
        let pagesOfTen = FilesAhead.Plan(file: "pages", collection: cities) { records in
            (0..<(records + 9) / 10).map { "\($0 + 1).json" }
        }
        let ahead = FilesAhead(
            folder: try OutputDirectory(target: target, threads: 2), plans: [pagesOfTen],
            read: { _ in read.withLock { $0 } })
        let pages = ahead.folder.staging.path + "/pages"
        #expect(ahead.createAvailable() == false)
        read.withLock { $0 = 25 }
        #expect(ahead.createAvailable() == true)
        #expect(Set(try Self.files(pages).keys) == ["1.json", "2.json", "3.json"])
        read.withLock { $0 = 95 }
        #expect(ahead.createAvailable() == true)
        #expect(try Self.files(pages).count == 10)
        // Rejects and duplicates left 42 records: five pages, none made past the ten.
        ahead.settle([cities: 42])
        #expect(ahead.createAvailable(settled: [cities: 42]) == false)
        var folder = ahead.folder
        folder.reserved = ahead.stop()
        #expect(folder.reserved == ["pages": Set((1...10).map { "\($0).json" })])
        try Self.writePages(5, "p", into: folder)
        #expect(try Self.files(target.path) == (1...5).reduce(into: [:]) { $0["pages/\($1).json"] = "p\($1)" })
    }

    /// A first run whose ingest fails on a broken page, after the pages of the files before
    /// it may have been created: no dataset, no staging folder, nothing else left.
    @Test func aFirstRunWhoseIngestFailsLeavesNoStagedPages() throws {
        let dir = try TempDir()
        for page in 1...40 {
            let ids = ((page - 1) * 50 + 1)...(page * 50)
            try dir.write("pages/page-\(page).json", PaginatedSourceTests.page(page, of: 41, ids: Array(ids)))
        }
        try dir.write("pages/page-41.json", #"{"page": 41, "total_pages": 41, "results": [{"_id": 1,"#)
        try dir.write(
            "paged.yml",
            PaginatedSourceTests.yaml.replacingOccurrences(
                of: "  - {file: cities.json, collection: cities}",
                with:
                    "  - {file: cities.json, collection: cities}\n  - {file: pages, format: pages, collection: cities, size: 1, key: name}"
            ))
        let run = try CLI.run(["run", "paged.yml", "--out", "out", "--threads", "2"], cwd: dir.path)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("page-41.json"), "\(run.stderr)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: dir.path + "/out")) ?? []
        #expect(left.filter { !$0.hasSuffix(".lock") } == [], "\(left)")
    }

    @Test func aStoppedCreatorLeavesAPrefixOfTheNames() throws {
        let dir = try TempDir()
        let target = dir.url.appendingPathComponent("dataset")
        let names = (1...2_000).map { "\($0).json" }
        let ahead = FilesAhead(folder: try OutputDirectory(target: target, threads: 2), planned: [("pages", names)])
        ahead.begin()
        let reserved = ahead.stop()["pages"] ?? []
        // Whatever was created when it stopped: the first names, each an empty file, and nothing else.
        #expect(reserved == Set(names.prefix(reserved.count)))
        #expect(Set(try Self.files(ahead.folder.staging.path + "/pages").keys) == reserved)
        ahead.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
