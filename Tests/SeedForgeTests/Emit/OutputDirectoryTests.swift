import Foundation
import Testing

@testable import SeedForge

@Suite("Emit: atomic output folders")
struct OutputDirectoryTests {
    @Test func aPreviousFileHoldsExactlyTheSameBytesOnly() throws {
        let dir = try TempDir()
        let page = Array("[\n  {\"id\": 1, \"name\": \"Zürich\"}\n]\n".utf8)
        let same = try dir.write("same.json", bytes: page)
        #expect(OutputDirectory.holds(same, exactly: page))
        var changed = page
        changed[changed.count - 3] = 0x7D
        changed[5] ^= 0x01
        #expect(!OutputDirectory.holds(same, exactly: changed))
        #expect(!OutputDirectory.holds(same, exactly: Array(page.dropLast())))
        #expect(!OutputDirectory.holds(same, exactly: page + [0x0A]))
        let empty = try dir.write("empty.json", bytes: [])
        #expect(OutputDirectory.holds(empty, exactly: []))
        #expect(!OutputDirectory.holds(empty, exactly: [0x0A]))
        #expect(!OutputDirectory.holds(dir.path + "/missing.json", exactly: []))
    }

    /// Small pieces are buffered, large ones written from where they lie: the file holds
    /// every piece in the order given, whatever their sizes, and its size and SHA-256 are
    /// those of those bytes.
    @Test func aStreamedFileHoldsSmallAndLargePiecesInOrder() throws {
        let dir = try TempDir()
        let folder = try OutputDirectory(target: dir.url.appendingPathComponent("dataset"), threads: 1)
        var random = SplitMix64(state: 45)
        let large = StagedFile.directSize
        let sizes = [10, large, 3, large + 1, large * 3, 1, 0, large - 1, 20, StagedFile.bufferSize + 5, 7]
        var expected: [UInt8] = []
        let written = try folder.stream("lines.ndjson") { file in
            for size in sizes {
                let piece = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                expected += piece
                try file.write(piece)
            }
        }
        #expect(written.bytes == expected.count)
        #expect(written.sha256 == SHA256.hex(expected))
        // As `Data`: a failure prints sizes, not megabytes of bytes.
        let staged = try Data(contentsOf: URL(fileURLWithPath: folder.stagedPath("lines.ndjson")))
        #expect(staged == Data(expected))
    }

    @Test func aFolderOfFilesLinksUnchangedPreviousFilesAndWritesTheRest() throws {
        let dir = try TempDir()
        let target = dir.url.appendingPathComponent("dataset")
        // A first run: no previous folder, every file written.
        let first = try OutputDirectory(target: target, threads: 1)
        let pages = try first.folder("pages")
        try pages.writeReusingPrevious(Array("one".utf8), to: "1.json")
        try pages.writeReusingPrevious(Array("two".utf8), to: "2.json")
        try pages.writeReusingPrevious([], to: "3.json")
        #expect(throws: IOFailure.self) { try pages.writeReusingPrevious(Array("again".utf8), to: "1.json") }
        try first.commit()
        #expect(try dir.read("dataset/pages/1.json") == "one")
        #expect(try dir.read("dataset/pages/3.json") == "")

        func inode(_ name: String) throws -> Int {
            try (FileManager.default.attributesOfItem(atPath: dir.path + "/" + name)[.systemFileNumber] as! NSNumber)
                .intValue
        }
        let before = try (1...3).map { try inode("dataset/pages/\($0).json") }
        let second = try OutputDirectory(target: target, threads: 1)
        let again = try second.folder("pages")
        try again.writeReusingPrevious(Array("one".utf8), to: "1.json")
        try again.writeReusingPrevious(Array("TWO".utf8), to: "2.json")
        try again.writeReusingPrevious([], to: "3.json")
        try again.writeReusingPrevious(Array("four".utf8), to: "4.json")
        try second.commit()
        #expect(try dir.read("dataset/pages/2.json") == "TWO")
        #expect(try dir.read("dataset/pages/4.json") == "four")
        // Unchanged files are the previous ones, linked; a changed one is a new file.
        #expect(try inode("dataset/pages/1.json") == before[0])
        #expect(try inode("dataset/pages/3.json") == before[2])
        #expect(try inode("dataset/pages/2.json") != before[1])
    }

    @Test func stagedFolderReplacesTheTargetOnlyOnCommit() throws {
        let dir = try TempDir()
        let target = dir.url.appendingPathComponent("dataset")
        try OutputDirectory.commitDataset(at: target, file: "data.json", text: "v1")
        #expect(try dir.read("dataset/data.json") == "v1")

        let failed = try OutputDirectory(target: target, threads: 1)
        try failed.write(Array("v2".utf8), to: "data.json")
        failed.discard()
        #expect(try dir.read("dataset/data.json") == "v1")

        let second = try OutputDirectory(target: target, threads: 1)
        try second.write(Array("v3".utf8), to: "data.json")
        try second.write(Array("new".utf8), to: "pages/1.json")
        try second.commit()
        #expect(try dir.read("dataset/data.json") == "v3")
        #expect(try dir.read("dataset/pages/1.json") == "new")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }
}
