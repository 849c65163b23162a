import Foundation
import Testing

@testable import SeedForge

@Suite("Paths and globs")
struct PathsTests {
    @Test func naturalOrderPutsPage2BeforePage10() {
        let names = ["page-10.json", "page-2.json", "page-1.json", "page-02b.json"]
        #expect(names.sorted(by: Glob.naturalLess) == ["page-1.json", "page-2.json", "page-02b.json", "page-10.json"])
    }

    @Test func expandsGlobsToFilesInNaturalOrder() throws {
        let dir = try TempDir()
        for name in ["p-10.json", "p-2.json", "p-1.json", "other.txt"] { try dir.write(name, "[]") }
        try FileManager.default.createDirectory(atPath: dir.path + "/p-3.json", withIntermediateDirectories: true)
        let files = Glob.expand(dir.path + "/p-*.json").map { ($0 as NSString).lastPathComponent }
        #expect(files == ["p-1.json", "p-2.json", "p-10.json"])
    }

    @Test func suggestsTheNearestName() {
        #expect(Suggestion.nearest(to: "feilds", in: ["fields", "id", "kind"]) == "fields")
        #expect(Suggestion.nearest(to: "collection", in: ["collections"]) == "collections")
        #expect(Suggestion.nearest(to: "zzzzzz", in: ["fields", "id"]) == nil)
    }

    @Test func globTiesAreOrderedByBytes() {
        #expect(Glob.naturalLess("page-02.json", "page-2.json"))
        #expect(!Glob.naturalLess("page-2.json", "page-02.json"))
    }

    @Test func relativePathsFromThePipelineFolder() {
        #expect(Paths.relative("/repo/Fixtures/a/shops.json", to: "/repo/pipelines") == "../Fixtures/a/shops.json")
        #expect(Paths.relative("/repo/pipelines/data.json", to: "/repo/pipelines/") == "data.json")
    }
}
