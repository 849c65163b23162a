import Foundation
import Testing

/// A nightly rerun with nothing new does nothing: same definition, same input bytes, same
/// seedforge version as the dataset's manifest records, and every output still there.
@Suite("End to end: skipping unchanged runs", .serialized)
struct UnchangedRunTests {
    /// The dataset folder's files with their bytes and inode: a skipped run touches none.
    static func state(_ folder: String) throws -> [String: (Data, UInt64)] {
        var files: [String: (Data, UInt64)] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            let path = folder + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            files[name] = (try Data(contentsOf: URL(fileURLWithPath: path)), UInt64(info.st_ino))
        }
        return files
    }

    static func same(_ a: [String: (Data, UInt64)], _ b: [String: (Data, UInt64)]) -> Bool {
        a.count == b.count && a.allSatisfy { name, file in b[name].map { $0.0 == file.0 && $0.1 == file.1 } ?? false }
    }

    /// Sets a file's modification time one minute later, keeping its bytes.
    static func touch(_ path: String) throws {
        let later = Date().addingTimeInterval(60)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: path)
    }

    @Test func aRerunWithNothingNewIsSkippedAndWritesNothing() throws {
        let dir = try HoneyShopsEndToEndTests.workspace()
        #expect(try HoneyShopsEndToEndTests.run(dir).status == 0)
        let before = try Self.state(dir.path + "/out/honey-shops")
        let again = try HoneyShopsEndToEndTests.run(dir)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stdout.contains(
                "honey-shops: unchanged (same definition, inputs and seedforge version as out/honey-shops), nothing written"
            ), "\(again.stdout)")
        #expect(Self.same(before, try Self.state(dir.path + "/out/honey-shops")))

        // Touched but rewritten with the same bytes: not a change.
        try Self.touch(dir.path + "/Fixtures/honey-shops/shops.json")
        #expect(try HoneyShopsEndToEndTests.run(dir).stdout.contains("unchanged"))
        #expect(Self.same(before, try Self.state(dir.path + "/out/honey-shops")))

        // --force runs anyway, and writes the same dataset.
        let forced = try HoneyShopsEndToEndTests.run(dir, extra: ["--force"])
        #expect(forced.status == 0 && forced.stdout.contains("honey-shops: wrote 8 shops"), "\(forced.stdout)")
        let after = try Self.state(dir.path + "/out/honey-shops")
        #expect(after.keys.sorted() == before.keys.sorted())
        for (name, file) in after where name != "manifest.json" { #expect(file.0 == before[name]?.0, "\(name)") }
    }

    @Test func aChangedInputDefinitionOrMissingOutputRunsAgain() throws {
        let dir = try HoneyShopsEndToEndTests.workspace()
        #expect(try HoneyShopsEndToEndTests.run(dir).status == 0)
        // One byte of one review, the size unchanged, written in place, and the
        // modification time set back to the nanosecond (as `touch -r` or `cp -p` do): the
        // status-change time still moves, so the file is read and found changed.
        let reviews = dir.path + "/Fixtures/honey-shops/reviews.ndjson"
        var before = stat()
        #expect(stat(reviews, &before) == 0)
        let text = try String(contentsOfFile: reviews, encoding: .utf8)
        let edited = text.replacingOccurrences(of: "\"rating\": 5", with: "\"rating\": 4")
        #expect(edited != text && edited.utf8.count == text.utf8.count)
        try edited.write(toFile: reviews, atomically: false, encoding: .utf8)
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, reviews, &times, 0) == 0)
        var after = stat()
        #expect(
            stat(reviews, &after) == 0 && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec
                && after.st_ino == before.st_ino)
        let changed = try HoneyShopsEndToEndTests.run(dir)
        #expect(changed.stdout.contains("honey-shops: wrote"), "\(changed.stdout)")
        #expect(try HoneyShopsEndToEndTests.run(dir).stdout.contains("unchanged"))

        // A comment added to the definition is a new definition.
        let pipeline = dir.path + "/pipelines/honey-shops.yml"
        try (try String(contentsOfFile: pipeline, encoding: .utf8) + "\n# reviewed\n").write(
            toFile: pipeline, atomically: true, encoding: .utf8)
        #expect(try HoneyShopsEndToEndTests.run(dir).stdout.contains("honey-shops: wrote"))

        // An output deleted from the dataset is written again.
        try FileManager.default.removeItem(atPath: dir.path + "/out/honey-shops/shops.csv")
        #expect(try HoneyShopsEndToEndTests.run(dir).stdout.contains("honey-shops: wrote"))
        #expect(FileManager.default.fileExists(atPath: dir.path + "/out/honey-shops/shops.csv"))
        // So is one whose size someone changed.
        let shops = dir.path + "/out/honey-shops/shops.json"
        try (try String(contentsOfFile: shops, encoding: .utf8) + " ").write(
            toFile: shops, atomically: false, encoding: .utf8)
        let repaired = try HoneyShopsEndToEndTests.run(dir, extra: ["--verbose"])
        #expect(repaired.stdout.contains("honey-shops: wrote"))
        #expect(
            repaired.stderr.contains("running: shops.json in the dataset was changed or removed"), "\(repaired.stderr)")

        // A dataset made by another build of seedforge is made again.
        let manifest = dir.path + "/out/honey-shops/manifest.json"
        let recorded = try String(contentsOfFile: manifest, encoding: .utf8)
        try recorded.replacingOccurrences(of: "\"build\": \"0.1.0+", with: "\"build\": \"0.0.9+").write(
            toFile: manifest, atomically: true, encoding: .utf8)
        let rebuilt = try HoneyShopsEndToEndTests.run(dir, extra: ["--verbose"])
        #expect(rebuilt.stderr.contains("running: made by another build of seedforge"), "\(rebuilt.stderr)")
    }

    @Test func aNewFileMatchingAGlobRunsAgain() throws {
        let dir = try TempDir()
        try dir.write(
            "p.yml",
            """
            name: glob
            sources:
              items: {kind: ndjson, path: data/*.ndjson, id: id, fields: {id: integer}}
            outputs:
              - {file: items.json, collection: items}
              - {file: pages, format: pages, collection: items, size: 1, key: id}
            """)
        try dir.write("data/a.ndjson", "{\"id\": 1}\n")
        #expect(try CLI.run(["run", "p.yml", "--out", "out"], cwd: dir.path).stdout.contains("glob: wrote 1 items"))
        #expect(try CLI.run(["run", "p.yml", "--out", "out"], cwd: dir.path).stdout.contains("glob: unchanged"))
        try dir.write("data/b.ndjson", "{\"id\": 2}\n")
        #expect(try CLI.run(["run", "p.yml", "--out", "out"], cwd: dir.path).stdout.contains("glob: wrote 2 items"))
        try FileManager.default.removeItem(atPath: dir.path + "/data/a.ndjson")
        #expect(try CLI.run(["run", "p.yml", "--out", "out"], cwd: dir.path).stdout.contains("glob: wrote 1 items"))
        // A file removed from inside a folder output (pages) is noticed.
        #expect(try CLI.run(["run", "p.yml", "--out", "out"], cwd: dir.path).stdout.contains("glob: unchanged"))
        try FileManager.default.removeItem(atPath: dir.path + "/out/glob/pages/1.json")
        #expect(try CLI.run(["run", "p.yml", "--out", "out"], cwd: dir.path).stdout.contains("glob: wrote 1 items"))
        #expect(FileManager.default.fileExists(atPath: dir.path + "/out/glob/pages/1.json"))
    }

    /// Pages followed by their `next` links are recorded as read; the chain is the same
    /// when every page is (each names the next in its own bytes).
    @Test func followedPagesAreComparedToo() throws {
        let dir = try TempDir()
        for file in ["pipelines/products.yml"] + (1...3).map({ "Fixtures/products/catalogue/page-\($0).html" }) {
            try dir.write(file, bytes: [UInt8](try Data(contentsOf: CLI.repoRoot.appendingPathComponent(file))))
        }
        let run = { try CLI.run(["run", "pipelines/products.yml", "--out", "out"], cwd: dir.path) }
        #expect(try run().stdout.contains("products: wrote 7 products"))
        #expect(try run().stdout.contains("products: unchanged"))
        // The last page, reached only through a link, changes: the run is not skipped.
        let last = dir.path + "/Fixtures/products/catalogue/page-3.html"
        try (try String(contentsOfFile: last, encoding: .utf8) + "\n").write(
            toFile: last, atomically: true, encoding: .utf8)
        #expect(try run().stdout.contains("products: wrote 7 products"))
    }
}
