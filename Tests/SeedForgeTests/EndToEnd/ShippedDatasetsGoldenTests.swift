import Foundation
import Testing

/// Every shipped pipeline, run by the real CLI on the shipped fixtures, writes exactly the
/// bytes of its golden copy (`Golden/datasets/NAME/`, made by the release of the engine
/// before its core was redesigned). Manifests are compared without their `run` section
/// (start time and timings); every other file, page and SQLite database byte for byte.
/// Refresh the golden copy only for an intended change of output: `make run`, then copy
/// `out/` over it and strip the manifests' `run` sections.
@Suite("Shipped datasets (golden)")
struct ShippedDatasetsGoldenTests {
    static let golden = CLI.repoRoot.appendingPathComponent("Tests/SeedForgeTests/EndToEnd/Golden/datasets")

    static var pipelines: [String] {
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: CLI.repoRoot.appendingPathComponent("pipelines").path))
            ?? []
        return names.filter { $0.hasSuffix(".yml") && !$0.hasSuffix(".test.yml") }.sorted().map { "pipelines/\($0)" }
    }

    /// The files of a folder, as paths relative to it, sorted.
    static func files(in folder: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var found: [String] = []
        for case let url as URL in walker
        where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            found.append(String(url.path.dropFirst(folder.path.count + 1)))
        }
        return found.sorted()
    }

    /// A manifest without its last section, `run` (when the run wrote one).
    static func withoutRunSection(_ data: Data) -> Data {
        let text = String(decoding: data, as: UTF8.self)
        guard let cut = text.range(of: ",\n  \"run\": {") else { return data }
        return Data((text[..<cut.lowerBound] + "\n}\n").utf8)
    }

    /// Thread counts, and memory limits: 4 KiB makes every collection spill to disk in
    /// batches of 4 records, so every step's and output's spilled path writes the bytes too.
    @Test(arguments: [(1, nil), (3, nil), (2, "4KiB"), (1, "4KiB")] as [(Int, String?)])
    func everyShippedDatasetMatchesItsGoldenCopy(threads: Int, memoryLimit: String?) throws {
        let dir = try TempDir()
        let pipelines = Self.pipelines
        #expect(pipelines.count >= 5)
        let limit = memoryLimit.map { ["--memory-limit", $0, "--verbose"] } ?? ["--quiet"]
        let result = try CLI.run(["run"] + pipelines + ["--out", dir.path, "--threads", String(threads)] + limit)
        #expect(result.status == 0, "\(result.stderr)")
        if let memoryLimit {
            // Every dataset really went through its spilled path, and left no spill folder.
            for pipeline in pipelines {
                let name = URL(fileURLWithPath: pipeline).deletingPathExtension().lastPathComponent
                #expect(
                    result.stderr.contains(
                        "\(name): memory limit \(memoryLimit.replacingOccurrences(of: "KiB", with: " KiB")): "),
                    "\(name) did not spill")
                #expect(!FileManager.default.fileExists(atPath: dir.path + "/.\(name).spill"))
            }
        }
        let expected = Self.files(in: Self.golden).filter { !$0.hasPrefix(".") }
        let written = Self.files(in: dir.url).filter { !$0.hasPrefix(".") }
        #expect(written == expected, "the datasets hold other files than their golden copies")
        for file in expected {
            var actual = try Data(contentsOf: dir.url.appendingPathComponent(file))
            if file.hasSuffix("manifest.json") {
                // `--threads` held in every stage: parallel pages, outputs side by side.
                let run = try #require(
                    (try JSONSerialization.jsonObject(with: actual) as? [String: Any])?["run"] as? [String: Any])
                let budget = try #require(run["threads"] as? [String: Int])
                #expect(budget["budget"] == threads, "\(file)")
                #expect((1...threads).contains(budget["peak"] ?? 0), "\(file): \(budget) over the budget of \(threads)")
                actual = Self.withoutRunSection(actual)
            }
            let wanted = try Data(contentsOf: Self.golden.appendingPathComponent(file))
            #expect(actual == wanted, "\(file) differs from its golden copy")
        }
    }
}
