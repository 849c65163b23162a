import Foundation
import Testing

@testable import SeedForge

/// A sort directly after a dedupe begun in the shards is begun there too: the shard gives
/// each survivor its place in the shard's sorted order, which a partial keeps through a
/// write, a read and a merge.
@Suite("Shard: a sort after a dedupe begun in the shards")
struct ShardDedupeSortTests {
    static func load(_ dataset: String) throws -> Pipeline {
        try Loader.load(path: CLI.repoRoot.appendingPathComponent(dataset).path)
    }

    /// products dedupes by url and then sorts; cities dedupes twice before its sort (the
    /// shards begin the first only); attractions adds search keys between them.
    @Test func theSortMustFollowTheDedupeTheShardsBegin() throws {
        for (dataset, sorts) in [
            ("pipelines/products.yml", true), ("pipelines/cities.yml", false), ("pipelines/attractions.yml", false),
        ] {
            let pipeline = try Self.load(dataset)
            let split = ShardPlan.split(pipeline)
            #expect(ShardDedupe.leading(pipeline, split: split) != nil, "\(dataset)")
            #expect((ShardDedupeSort.following(pipeline, split: split) != nil) == sorts, "\(dataset)")
        }
    }

    /// A shard whose records spilled past `--memory-limit` does not rank its survivors
    /// (read back, they would all be held again for the sort): the finish sorts them, and
    /// the dataset is the plain run's.
    @Test func aShardPastItsMemoryLimitLeavesTheSortToTheFinish() throws {
        let dir = try TempDir()
        let pipeline = try Self.load("pipelines/products.yml")
        let sort = try #require(ShardDedupeSort.following(pipeline, split: ShardPlan.split(pipeline)))
        let path = CLI.repoRoot.appendingPathComponent("pipelines/products.yml").path
        var parts: [String] = []
        for index in 0..<2 {
            let part = dir.path + "/part\(index)"
            let shard = try CLI.run(
                ["run", path, "--shard", "\(index)/2", "--partial", part, "--memory-limit", "1", "--quiet"])
            #expect(shard.status == 0, "\(shard.stderr)")
            // (Shard 1 reads no page: nothing to rank either way.)
            let partial = try Partial.read(part)
            let records = partial.segments.filter { $0.collection == sort.collection }.reduce(0) { $0 + $1.count }
            #expect((index == 0) == (records > 0))
            #expect(try ShardDedupeSort.ranks(partial, of: sort.collection).map(\.ranks.count) ?? 0 == 0)
            parts.append(part)
        }
        let plain = try CLI.run(["run", path, "--out", dir.path + "/plain", "--quiet"])
        let finished = try CLI.run(["merge"] + parts + ["--out", dir.path + "/sharded", "--quiet"])
        #expect(plain.status == 0 && finished.status == 0, "\(plain.stderr) \(finished.stderr)")
        for file in ["products.json", "rejects.ndjson", "duplicates.ndjson", "warnings.ndjson"] {
            #expect(
                try Data(contentsOf: dir.url.appendingPathComponent("plain/products/\(file)"))
                    == Data(contentsOf: dir.url.appendingPathComponent("sharded/products/\(file)")), "\(file)")
        }
    }

    /// products' shard 0 of 2 (its pages follow links: one shard reads them all): every
    /// survivor has one place in the shard's sorted order,
    /// and the survivors in that order are sorted by name and url, equal keys in input order.
    @Test func theSurvivorsPlacesAreTheirShardsSortedOrder() throws {
        let dir = try TempDir()
        let pipeline = try Self.load("pipelines/products.yml")
        let path = dir.path + "/part"
        _ = try ShardRun.run(
            pipeline, shard: Shard(index: 0, count: 2), partial: path,
            options: RunOptions(outputRoot: dir.path + "/unused", logger: Harness.silent, threads: 2))
        let partial = try Partial.read(path)
        let sort = try #require(ShardDedupeSort.following(pipeline, split: ShardPlan.split(pipeline)))
        let (shards, ranks) = try #require(try ShardDedupeSort.ranks(partial, of: sort.collection))
        #expect(ranks.count >= 5, "the products of every page")
        #expect(shards.allSatisfy { $0 == 0 })
        #expect(ranks.sorted() == Array(ranks.indices))
        let source = SourceText(displayPath: "x", bytes: FileBytes(copying: []))
        let records = try partial.segments.filter { $0.collection == sort.collection && $0.losers == nil }
            .flatMap { try RecordCodec(sources: [source]).decodeAll($0.bytes, count: $0.count, width: 0) }
        var byRank = [Int](repeating: 0, count: ranks.count)
        for (position, rank) in ranks.enumerated() { byRank[rank] = position }
        func key(_ position: Int) -> ByteKey {
            var key = ByteKey()
            sort.appendKey(of: records[position], to: &key)
            return key
        }
        for (a, b) in zip(byRank, byRank.dropFirst()) {
            #expect(key(a) < key(b) || (key(a) == key(b) && a < b), "\(records[a].values) before \(records[b].values)")
        }
        // Through a merge, a write and a read: the same places.
        try Partial.merge([("a", partial)]).write(to: dir.path + "/merged")
        let again = try #require(try ShardDedupeSort.ranks(Partial.read(dir.path + "/merged"), of: sort.collection))
        #expect(again.shards == shards && again.ranks == ranks)
    }
}
