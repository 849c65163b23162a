import Foundation
import Testing

@testable import SeedForge

/// A partial read from disk keeps its records' segments in the file and reads each again
/// when it is used (so merging and finishing never hold every partial whole): a partial
/// written from one read so has the same bytes, and a partial changed or cut short after
/// it was read is an error when its records are read, never records decoded from other
/// bytes or a crash.
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
    static func records(_ partial: Partial) throws -> [String] {
        let source = SourceText(displayPath: "x", bytes: FileBytes(copying: []))
        return try partial.segments.flatMap { segment in
            try RecordCodec(sources: [source]).decodeAll(segment.bytes, count: segment.count, width: 0).map {
                "\(segment.collection.name) \(segment.file) \($0.origin.offset) \($0.origin.index) \($0.values)"
            }
        }
    }

    @Test func aPartialReadAndWrittenAgainHasTheSameBytes() throws {
        let dir = try TempDir()
        let path = try Self.shard(into: dir)
        let partial = try Partial.read(path)
        #expect(try Self.records(partial).count > 20, "the cities fixture's records")
        try partial.write(to: dir.path + "/copy")
        let original = try Data(contentsOf: URL(fileURLWithPath: path + "/" + Partial.binaryFile))
        let copy = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/copy/" + Partial.binaryFile))
        #expect(copy == original)
        #expect(try Self.records(Partial.read(dir.path + "/copy")) == Self.records(partial))
    }

    /// The cities pipeline's finish starts with a dedupe by id, which the shard begins: its
    /// partial holds the survivors and, apart, the loser (city 707860, listed on pages 1
    /// and 3) with its place and its winner's, which a read and a merge keep.
    @Test func aShardsLocalLosersKeepTheirPlaceAndTheirWinners() throws {
        let dir = try TempDir()
        let partial = try Partial.read(try Self.shard(into: dir))
        let losers = partial.segments.filter { $0.losers != nil }
        let loser = try #require(losers.first?.losers?.first)
        #expect(losers.map(\.count) == [1])
        #expect(partial.files[losers[0].file].displayPath.hasSuffix("page-3.json"))
        #expect(partial.files[loser.winner.file].displayPath.hasSuffix("page-1.json"))
        // The winner's place: its index among its file's records, counting the loser's
        // place in its own file only.
        let survivors = partial.segments.filter { $0.collection.name == "cities" && $0.losers == nil }
        let winnerSegment = try #require(survivors.first { $0.file == loser.winner.file })
        let source = SourceText(displayPath: "x", bytes: FileBytes(copying: []))
        let winner = try RecordCodec(sources: [source]).decodeAll(
            winnerSegment.bytes, count: winnerSegment.count, width: 0)[loser.winner.index]
        let removed = try RecordCodec(sources: [source]).decodeAll(losers[0].bytes, count: 1, width: 0)[0]
        #expect(winner.values.first == removed.values.first, "\(winner.values) won over \(removed.values)")
        #expect(removed.values.first == .int(707_860))
        // Through a merge and a read: the same.
        let merged = try Partial.merge([("a", partial)])
        try merged.write(to: dir.path + "/merged")
        let again = try Partial.read(dir.path + "/merged")
        #expect(again.segments.compactMap(\.losers) == [[loser]])
    }

    /// A damaged byte inside the records (not the header) is caught by the seal.
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

    /// After the seal was checked, the file is rewritten in place with a changed byte (same
    /// size), or cut short: reading the records is refused with a message naming the file.
    @Test(arguments: ["rewritten", "cut short"])
    func aPartialChangedWhileAMergeReadsItIsRefused(change: String) throws {
        let dir = try TempDir()
        let path = try Self.shard(into: dir)
        let partial = try Partial.read(path)
        let file = path + "/" + Partial.binaryFile
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        if change == "rewritten" { bytes[bytes.count - 100] ^= 0x20 } else { bytes.removeLast(200) }
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: bytes)
        try handle.close()
        #expect {
            _ = try Self.records(partial)
        } throws: { error in
            "\(error)".contains("\(file) changed while this merge read it")
        }
    }
}

/// The group summaries a shard's partial holds for a `group-stats` begun in the shards
/// read back as they were written: exact sums (128-bit significands, negative ones too),
/// picks and mode candidates with their files.
@Suite("Shard: group summaries in partials")
struct PartialGroupSummaryTests {
    @Test func aSummaryReadsBackAsWritten() throws {
        var summary = GroupSummary(values: [.string("Lviv"), .int(4)], file: 3, metrics: 3)
        summary.count = 12
        summary.counts[0] = 5
        let big = ExactNumber(significand: -(Int128(1) << 100) - 12_345, exponent: -7)
        summary.totals[1] = NumberTotal(count: 4, exact: big, absolute: try #require(big.magnitude))
        var key = ByteKey()
        key.append(.double(2.5), text: .exact)
        summary.picks[2] = GroupSummary.Pick(key: key, value: .double(2.5), file: 1)
        summary.modes[2][key] = GroupSummary.Pick(key: key, value: .int(4), file: 2, count: 9)
        var group = ByteKey()
        group.append(.string("Lviv"), text: .folded)
        var writer = PartialWriter()
        writer.summary(group, summary)
        let (readKey, read) = try writer.bytes.withUnsafeBufferPointer { buffer in
            var reader = PartialReader(buffer, path: "test")
            return try reader.summary()
        }
        #expect(readKey == group)
        #expect(read.values == summary.values && read.file == 3 && read.count == 12 && read.counts == [5, 0, 0])
        #expect(read.totals[1].exact == big && read.totals[1].count == 4 && read.totals[1].isOrderFree)
        #expect(read.picks[2]?.value == .double(2.5) && read.picks[2]?.file == 1)
        #expect(read.modes[2][key]?.count == 9 && read.modes[2][key]?.value == .int(4))
        #expect(read.picks[0] == nil && read.modes[0].isEmpty)
    }
}
