import Foundation
import Testing

@testable import SeedForge

/// A partial read from disk keeps its records' segments as windows of the mapped
/// `partial.bin` (so merging and finishing never hold every partial whole): the bytes of a
/// window stay readable after its pages are let go, and writing a partial read so streams
/// the same bytes back.
@Suite("Shard: partial files")
struct PartialFileTests {
    static let dataset = "pipelines/cities.yml"

    static func shard(into dir: TempDir) throws -> String {
        let path = dir.path + "/part"
        _ = try ShardRun.run(
            try Loader.load(path: CLI.repoRoot.appendingPathComponent(dataset).path),
            shard: Shard(index: 0, count: 1), partial: path,
            options: RunOptions(outputRoot: dir.path + "/unused", logger: Harness.silent, threads: 1))
        return path
    }

    /// Every record of every segment, as text: values, file, offset and index.
    static func records(_ partial: Partial) -> [String] {
        let source = SourceText(displayPath: "x", bytes: FileBytes(copying: []))
        return partial.segments.flatMap { segment in
            RecordCodec(sources: [source]).decodeAll(segment.bytes, count: segment.count, width: 0).map {
                "\(segment.collection.name) \(segment.file) \($0.origin.offset) \($0.origin.index) \($0.values)"
            }
        }
    }

    @Test func segmentsReadTheSameAfterTheirPagesAreLetGo() throws {
        let dir = try TempDir()
        let partial = try Partial.read(try Self.shard(into: dir))
        let before = Self.records(partial)
        #expect(before.count > 20, "the cities fixture's records")
        for segment in partial.segments { segment.bytes.release() }
        #expect(Self.records(partial) == before)
    }

    @Test func aPartialReadAndWrittenAgainHasTheSameBytes() throws {
        let dir = try TempDir()
        let path = try Self.shard(into: dir)
        try Partial.read(path).write(to: dir.path + "/copy")
        let original = try Data(contentsOf: URL(fileURLWithPath: path + "/" + Partial.binaryFile))
        let copy = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/copy/" + Partial.binaryFile))
        #expect(copy == original)
        #expect(try Partial.read(dir.path + "/copy").segments.count == Partial.read(path).segments.count)
    }

    /// A damaged byte inside the records (not the header) is caught by the seal, whose
    /// check reads the mapped file a piece at a time.
    @Test func aDamagedSegmentIsRefused() throws {
        let dir = try TempDir()
        let path = try Self.shard(into: dir)
        let file = URL(fileURLWithPath: path + "/" + Partial.binaryFile)
        var bytes = Array(try Data(contentsOf: file))
        bytes[bytes.count - 100] ^= 0x20
        try Data(bytes).write(to: file)
        #expect {
            _ = try Partial.read(path)
        } throws: { error in
            "\(error)".contains("is cut short or damaged")
        }
    }
}
