import Foundation
import Testing

@testable import SeedForge

@Suite("Emit: atomic output folders")
struct OutputDirectoryTests {
    @Test func stagedFolderReplacesTheTargetOnlyOnCommit() throws {
        let dir = try TempDir()
        let target = dir.url.appendingPathComponent("dataset")
        let first = try OutputDirectory(target: target, threads: 1)
        try first.write(Array("v1".utf8), to: "data.json")
        try first.commit()
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
