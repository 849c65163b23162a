import Foundation
import Testing

@testable import SeedForge

/// A file read a window at a time is hashed a window at a time (`InputDigest.advance`): the
/// hash it gives must be the file's SHA-256 however the windows fall, for a plain file and
/// for a compressed one (whose stored bytes are hashed, at the same share as its text).
@Suite("Ingest: input hash a window at a time")
struct InputDigestTests {
    /// 3 MB of text that does not repeat.
    static func text() -> String {
        var generator = SplitMix64(state: 5)
        return (0..<60_000).map { "{\"id\": \($0), \"name\": \"c\(generator.next() % 1_000_003)\"}" }
            .joined(separator: ",\n")
    }

    static func hashedInWindows(_ path: String, windows: [Int]) throws -> String {
        let contents = try InputFile.read(path)
        let total = contents.text.count
        for share in windows { contents.digest.advance(reached: total * share / 100, of: total) }
        return contents.sha256
    }

    @Test(arguments: [[], [0], [10, 10, 35, 99], [1, 2, 3, 50, 100], [100, 100]])
    func aFileHashedAWindowAtATimeGivesItsSHA256(windows: [Int]) throws {
        let dir = try TempDir()
        let bytes = Array(Self.text().utf8)
        let plain = dir.path + "/cities.json"
        try Data(bytes).write(to: URL(fileURLWithPath: plain))
        #expect(try Self.hashedInWindows(plain, windows: windows) == SHA256.hex(bytes))
        let packed = try PaginatedSourceTests.gzip(Self.text())
        let compressed = dir.path + "/cities.json.gz"
        try Data(packed).write(to: URL(fileURLWithPath: compressed))
        #expect(try Self.hashedInWindows(compressed, windows: windows) == SHA256.hex(packed))
    }
}
