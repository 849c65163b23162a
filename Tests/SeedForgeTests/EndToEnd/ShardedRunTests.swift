import Foundation
import Testing

@testable import SeedForge

/// `seedforge run --shard I/N --partial DIR` and `seedforge merge`, run by the real CLI on
/// the shipped pipelines and fixtures: any number of shards and any merge tree give the
/// dataset a plain run writes, byte for byte (manifests without their `run` section), and
/// partials that do not belong together are refused with a message that says why.
@Suite("Sharded runs")
struct ShardedRunTests {
    typealias Golden = ShippedDatasetsGoldenTests

    /// Every pipeline that runs on the repository's fixtures (validation.yml fails on
    /// purpose: its malformed file is tested below).
    static let pipelines: [String] =
        Golden.pipelines
        + ((try? FileManager.default.contentsOfDirectory(atPath: CLI.repoRoot.appendingPathComponent("Fixtures").path))
        ?? [])
        .sorted().flatMap { folder -> [String] in
            let path = CLI.repoRoot.appendingPathComponent("Fixtures/\(folder)").path
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.filter { $0.hasSuffix(".yml") && !$0.hasSuffix(".test.yml") && $0 != "validation.yml" }
                .sorted().map { "Fixtures/\(folder)/\($0)" }
        }

    /// Fixtures whose shards run `nearest` and `lookup` on reference data every shard reads
    /// whole: tested with as many shards as the shipped pipelines.
    static let searchingInShards = ["Fixtures/places/nearest-city.yml"]

    static func name(of pipeline: String) throws -> String {
        let text = try String(contentsOf: CLI.repoRoot.appendingPathComponent(pipeline), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("name:") })
        return line.dropFirst("name:".count).trimmingCharacters(in: .whitespaces)
    }

    /// Merges the first two partials into one, then that one with the rest into a dataset
    /// under a 4 KiB memory limit, and expects the dataset `dir/plain/DATASET` of a plain run.
    static func expectTreeUnderALimitMatchesPlain(
        _ parts: [String], in dir: TempDir, dataset: String, _ what: String
    ) throws {
        #expect(try CLI.run(["merge", parts[0], parts[1], "--partial", dir.path + "/head", "--quiet"]).status == 0)
        let tree = try CLI.run(
            ["merge"] + parts[2...] + [
                dir.path + "/head", "--out", dir.path + "/tree", "--quiet", "--memory-limit", "4KiB",
            ])
        #expect(tree.status == 0, "\(tree.stderr)")
        expectSameDataset(
            dir.url.appendingPathComponent("plain/\(dataset)"), dir.url.appendingPathComponent("tree/\(dataset)"), what)
    }

    /// Asserts two dataset folders hold the same files with the same bytes.
    static func expectSameDataset(_ plain: URL, _ sharded: URL, _ what: String) {
        let files = Golden.files(in: plain)
        #expect(files == Golden.files(in: sharded), "\(what): other files")
        for file in files {
            var a = (try? Data(contentsOf: plain.appendingPathComponent(file))) ?? Data()
            var b = (try? Data(contentsOf: sharded.appendingPathComponent(file))) ?? Data()
            if file == "manifest.json" {
                a = Golden.withoutRunSection(a)
                b = Golden.withoutRunSection(b)
            }
            #expect(a == b, "\(what): \(file) differs")
        }
    }

    func shards(_ pipeline: String, count: Int, in dir: TempDir, _ extra: [String] = []) throws -> [String] {
        try (0..<count).map { index in
            let folder = dir.path + "/parts/\(index)"
            let result = try CLI.run(["run", pipeline, "--shard", "\(index)/\(count)", "--partial", folder] + extra)
            #expect(result.status == 0, "\(pipeline) shard \(index)/\(count): \(result.stderr)")
            #expect(result.stdout.contains("shard \(index)/\(count): "), "\(result.stdout)")
            return folder
        }
    }

    /// Shards in one merge, and as a tree: pairs merged into partials, merged in reverse
    /// order, finished; the merged partials' bytes do not depend on the grouping.
    @Test(arguments: pipelines, [1, 2, 3, 7])
    func shardsMergedInAnyTreeWriteThePlainRunsDataset(pipeline: String, count: Int) throws {
        // Other fixtures: 2 and 3 shards.
        if count == 7 || count == 1, !Golden.pipelines.contains(pipeline), !Self.searchingInShards.contains(pipeline) {
            return
        }
        let dir = try TempDir()
        let name = try Self.name(of: pipeline)
        let plain = try CLI.run(["run", pipeline, "--out", dir.path + "/plain", "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let parts = try shards(pipeline, count: count, in: dir)
        // A task run again (a retry) writes the same partial.
        let again = dir.path + "/again"
        #expect(
            try CLI.run(["run", pipeline, "--shard", "0/\(count)", "--partial", again, "--threads", "1"]).status == 0)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: again + "/partial.bin"))
                == Data(contentsOf: URL(fileURLWithPath: parts[0] + "/partial.bin")))

        let flat = try CLI.run(["merge"] + parts + ["--out", dir.path + "/flat", "--quiet"])
        #expect(flat.status == 0, "\(flat.stderr)")
        Self.expectSameDataset(
            dir.url.appendingPathComponent("plain/\(name)"), dir.url.appendingPathComponent("flat/\(name)"),
            "\(pipeline), \(count) shards")
        guard count >= 2 else { return }

        // ((0, 1), rest reversed) finished in reverse order of arguments.
        let head = dir.path + "/tree/head"
        let tail = dir.path + "/tree/tail"
        #expect(try CLI.run(["merge", parts[0], parts[1], "--partial", head, "--quiet"]).status == 0)
        if count > 2 {
            #expect(try CLI.run(["merge"] + parts[2...].reversed() + ["--partial", tail, "--quiet"]).status == 0)
        }
        let treeParts = count > 2 ? [tail, head] : [head]
        let tree = try CLI.run(["merge"] + treeParts + ["--out", dir.path + "/tree-out", "--quiet"])
        #expect(tree.status == 0, "\(tree.stderr)")
        Self.expectSameDataset(
            dir.url.appendingPathComponent("plain/\(name)"), dir.url.appendingPathComponent("tree-out/\(name)"),
            "\(pipeline), \(count) shards merged as a tree")

        // One partial of everything: the same bytes from any grouping and order.
        let all = dir.path + "/all-at-once"
        let regrouped = dir.path + "/regrouped"
        #expect(try CLI.run(["merge"] + parts + ["--partial", all, "--quiet"]).status == 0)
        #expect(try CLI.run(["merge"] + treeParts + ["--partial", regrouped, "--quiet"]).status == 0)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: all + "/partial.bin"))
                == Data(contentsOf: URL(fileURLWithPath: regrouped + "/partial.bin")))
    }

    /// Every JSON array and NDJSON file split into byte ranges, one per shard (as a large
    /// dump is), shards and finish under a memory limit that spills every collection:
    /// records, rejects and their indexes in the file are the plain run's.
    @Test(arguments: pipelines)
    func filesSplitIntoByteRangesWriteThePlainRunsDataset(pipeline: String) throws {
        let dir = try TempDir()
        let name = try Self.name(of: pipeline)
        let plain = try CLI.run(["run", pipeline, "--out", dir.path + "/plain", "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let parts = try shards(pipeline, count: 3, in: dir, ["--split-files-over", "1", "--memory-limit", "4KiB"])
        let merged = try CLI.run(
            ["merge"] + parts.reversed() + ["--out", dir.path + "/split", "--quiet", "--memory-limit", "4KiB"])
        #expect(merged.status == 0, "\(merged.stderr)")
        Self.expectSameDataset(
            dir.url.appendingPathComponent("plain/\(name)"), dir.url.appendingPathComponent("split/\(name)"),
            "\(pipeline), files split between 3 shards")
        // Partials of another split are not merged with these.
        let otherDir = try TempDir()
        let whole = try shards(pipeline, count: 3, in: otherDir)
        let mixed = try CLI.run(["merge", parts[0], whole[1], whole[2], "--out", dir.path + "/mixed"])
        #expect(mixed.status == 2)
        #expect(mixed.stderr.contains("bytes split"), "\(mixed.stderr)")
    }

    /// `nearest` and `lookup` searching reference sources run in the shards: every shard
    /// reads those sources whole (never split, even over `--split-files-over`), and only
    /// shard 0's partial holds their files, records, rejects and warnings.
    @Test func nearestAndLookupRunInTheShardsOnReferenceDataEveryShardReadsWhole() throws {
        let pipeline = "Fixtures/places/nearest-city.yml"
        let loaded = try Loader.load(path: CLI.repoRoot.appendingPathComponent(pipeline).path)
        let plan = ShardPlan.steps(of: loaded)
        // Everything up to the sorts: validate, two lookups, two nearest.
        #expect(plan.count == 9)
        #expect(plan.shared.map { loaded.sources[$0].collection.name } == ["trips", "cities"])
        // A pipeline whose reference data is deduplicated first still stops there.
        let places = try Loader.load(path: CLI.repoRoot.appendingPathComponent("pipelines/places.yml").path)
        #expect(ShardPlan.steps(of: places).shared.isEmpty)

        let dir = try TempDir()
        let parts = try shards(pipeline, count: 3, in: dir, ["--split-files-over", "1"])
        for (index, part) in parts.enumerated() {
            let partial = try Partial.read(part)
            let collections = Set(partial.files.map(\.input.collection.name))
            #expect(partial.identity.split == 9)
            #expect(collections.contains("cities") == (index == 0), "shard \(index): \(collections.sorted())")
            #expect(collections.contains("trips") == (index == 0), "shard \(index): \(collections.sorted())")
            #expect(
                partial.entries.allSatisfy { !["cities", "trips"].contains($0.collection.name) } || index == 0,
                "shard \(index) reports findings in reference data")
            // Each shard ran them on its own records.
            #expect(partial.stats.filter { $0.label.hasPrefix("enrich: ") }.count == 4)
        }
        let shard0 = try Partial.read(parts[0])
        #expect(shard0.files.filter { $0.input.collection.name == "cities" }.allSatisfy { $0.place.part == 0 })
        #expect(shard0.entries.contains { $0.collection.name == "cities" && $0.step == "enrich: lookup" })
    }

    /// A sort that the finish would start with is begun in the shards: each partial holds
    /// its shard's sorted run, and the finish merges the runs. Records with equal keys keep
    /// the order of a plain run (input order), whether their files are whole in one shard
    /// or split into byte ranges, in one merge or a tree, under a memory limit that spills.
    @Test(arguments: [2, 3, 7])
    func aSortBegunInTheShardsKeepsEqualKeysInInputOrder(count: Int) throws {
        let dir = try TempDir()
        // Deliveries of three depots: many share a day, a few have none.
        for file in 1...4 {
            let lines = (0..<(file == 4 ? 300 : 40)).map { index -> String in
                let id = file * 1_000 + index
                let day = index % 7 == 3 ? "null" : "\"2026-11-\(10 + (index * 5 + file) % 4)\""
                return #"{"id": \#(id), "day": \#(day), "depot": "D\#(file)", "weight": \#(Double(index % 9) / 4)}"#
            }
            try dir.write("deliveries-\(file).ndjson", lines.joined(separator: "\n") + "\n")
        }
        let pipeline = try dir.write(
            "deliveries.yml",
            """
            name: deliveries
            sources:
              deliveries:
                kind: ndjson
                path: deliveries-*.ndjson
                id: id
                fields: {id: integer, day: string, depot: string, weight: number}
            steps:
              - validate: range
                collection: deliveries
                field: weight
                max: 1.75
              - aggregate: sort
                collection: deliveries
                by: [{field: day, order: desc}]
            outputs:
              - {file: deliveries.ndjson, collection: deliveries}
            thresholds:
              max-reject-fraction: 1
            """)
        #expect(try CLI.run(["run", pipeline, "--out", dir.path + "/plain", "--quiet"]).status == 0)
        let parts = try shards(pipeline, count: count, in: dir, ["--split-files-over", "4KiB"])
        for (index, part) in parts.enumerated() {
            let partial = try Partial.read(part)
            #expect(partial.segments.allSatisfy { $0.run == index }, "shard \(index) wrote no sorted run")
        }
        let flat = try CLI.run(["merge"] + parts.reversed() + ["--out", dir.path + "/flat", "--quiet"])
        #expect(flat.status == 0, "\(flat.stderr)")
        Self.expectSameDataset(
            dir.url.appendingPathComponent("plain/deliveries"), dir.url.appendingPathComponent("flat/deliveries"),
            "sorted runs of \(count) shards")
        try Self.expectTreeUnderALimitMatchesPlain(
            parts, in: dir, dataset: "deliveries",
            "sorted runs of \(count) shards merged as a tree under a memory limit")
        // Many records share a day: the ties are there to keep.
        let lines = try dir.read("plain/deliveries/deliveries.ndjson").split(separator: "\n")
        #expect(lines.count > 300)
        #expect(lines[0].contains(#""day":"2026-11-13""#), "\(lines[0])")
    }

    /// The dedupes a finish can start with: begun in the shards (each shard's partial holds
    /// its survivors and, apart, its local losers) unless `fill`, `within` or `across` make
    /// a group's winner depend on other shards' records (then the finish runs them whole).
    static let shardDedupes: [(yaml: String, inShards: Bool)] = [
        ("by: name\n    fold: true\n    keep: last", true),
        ("by: [name, lat]\n    precision: 1\n    keep: highest\n    keep-by: score", true),
        ("by: [name, code]\n    keep: lowest\n    keep-by: score", true),
        ("by: code\n    keep: first", true),
        ("by: name\n    fold: true\n    keep: lowest\n    keep-by: score\n    fill: [code]", false),
    ]

    /// The sorts after the dedupe, each begun in the shards (`ShardDedupeSort`): a unique
    /// last key; many ties across shards (a plain run keeps them in input order, where a
    /// `keep: last` or `highest` winner holds its own place); null keys, descending, and
    /// several keys.
    static let sortsAfterDedupe = [
        "[name, id]",
        "[{field: name, collation: exact}]",
        "[{field: score, order: desc}, code]",
    ]

    /// A dedupe the finish starts with, begun in the shards: duplicates whose winner is in
    /// another shard (a local winner that loses there takes its local losers with it),
    /// `keep: last`, `highest` and `lowest` with null `keep-by` values, `fold`, `precision`
    /// and null keys give the plain run's dataset and duplicates log, byte for byte, with
    /// files whole or split into byte ranges, in one merge or a tree, under a memory limit
    /// that spills, and with a sort after the dedupe, begun in the shards too: every dedupe
    /// meets every sort (counts 2, 3 and 7 pick different ones).
    @Test(arguments: shardDedupes.indices, [2, 3, 7])
    func aDedupeBegunInTheShardsLogsEveryLoserWithItsFinalWinner(dedupe: Int, count: Int) throws {
        let dir = try TempDir()
        // Names that fold together, spread over every file; some scores and codes null.
        let names = ["Ålborg", "alborg", "ALBORG", "Lviv", "lviv", "Zürich", "zurich", "Nice", "nice ", "Oslo"]
        for file in 1...5 {
            let lines = (0..<(file == 5 ? 240 : 60)).map { index -> String in
                let id = file * 1_000 + index
                let name = names[(index * 7 + file * 3) % names.count]
                let lat = 40 + Double((index + file) % 3) * 0.04
                let score = (index + file) % 5 == 0 ? "null" : "\((index * 13 + file * 5) % 9)"
                let code = index % 6 == 1 ? "null" : "\"C\((index + 2 * file) % 4)\""
                return #"{"id": \#(id), "name": "\#(name)", "lat": \#(lat), "score": \#(score), "code": \#(code)}"#
            }
            try dir.write("towns-\(file).ndjson", lines.joined(separator: "\n") + "\n")
        }
        let (yaml, inShards) = Self.shardDedupes[dedupe]
        let pipeline = try dir.write(
            "towns.yml",
            """
            \(Self.townsSource)
            steps:
              - validate: range
                collection: towns
                field: score
                max: 7
              - aggregate: dedupe
                collection: towns
                \(yaml)
              - aggregate: sort
                collection: towns
                by: \(Self.sortsAfterDedupe[(dedupe + count) % Self.sortsAfterDedupe.count])
            outputs:
              - {file: towns.ndjson, collection: towns}
            thresholds:
              max-reject-fraction: 1
            """)
        let plain = try CLI.run(["run", pipeline, "--out", dir.path + "/plain", "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let parts = try shards(pipeline, count: count, in: dir, ["--split-files-over", "4KiB"])
        let partials = try parts.map { try Partial.read($0) }
        let losers = partials.map { $0.segments.filter { $0.losers != nil }.reduce(0) { $0 + $1.count } }
        if inShards {
            #expect(losers.allSatisfy { $0 > 0 }, "shards' local losers: \(losers)")
        } else {
            #expect(losers.allSatisfy { $0 == 0 }, "a dedupe with fill begun in the shards")
        }
        // Every survivor carries its place in its own shard's sorted order.
        for (index, partial) in partials.enumerated() {
            let survivors = partial.segments.filter { $0.losers == nil }
            #expect(
                survivors.allSatisfy { $0.ranked?.shard == (inShards ? index : nil) },
                "shard \(index): survivors without their places in its sort")
        }
        let flat = try CLI.run(["merge"] + parts.reversed() + ["--out", dir.path + "/flat", "--verbose"])
        #expect(flat.status == 0, "\(flat.stderr)")
        // Without a limit the finish completes the dedupe the shards began (it does not put
        // the losers back and deduplicate everything again), then merges their sorted
        // survivors (it does not sort them again).
        #expect(flat.stderr.contains("(begun in the shards)") == inShards, "\(flat.stderr)")
        #expect(flat.stderr.contains("the shards' sorted survivors merged") == inShards, "\(flat.stderr)")
        Self.expectSameDataset(
            dir.url.appendingPathComponent("plain/towns"), dir.url.appendingPathComponent("flat/towns"),
            "dedupe \(dedupe) begun in \(count) shards")
        try Self.expectTreeUnderALimitMatchesPlain(
            parts, in: dir, dataset: "towns",
            "dedupe \(dedupe) begun in \(count) shards, merged as a tree under a memory limit")
        // Duplicates there are, and some of them in other files than their winners.
        let log = try dir.read("plain/towns/duplicates.ndjson").split(separator: "\n")
        #expect(log.count > 100, "\(log.count) duplicates")
        let crossing = log.filter { line in
            let files = line.matches(of: /"(?:file|winnerFile)":"([^"]*)"/).map { String($0.1) }
            return files.count == 2 && files[0] != files[1]
        }
        #expect(!crossing.isEmpty, "no duplicate whose winner is in another file: \(log.prefix(2))")
    }

    /// Towns whose codes and names repeat in every file: some records hold a key first and
    /// are rejected by another rule (a later one is still a duplicate of them), some break
    /// a rule and repeat a key (rejected with both findings), some carry a warning and are
    /// rejected for a repeated key.
    /// The head of a pipeline reading the towns files (`writeRepeatingTowns`, and the
    /// dedupe test's), up to its steps.
    static let townsSource = """
        name: towns
        sources:
          towns:
            kind: ndjson
            path: towns-*.ndjson
            id: id
            fields: {id: integer, name: string, lat: number, score: integer, code: string}
        """

    static func writeRepeatingTowns(in dir: TempDir) throws {
        let names = ["Lviv", "Oslo", "Nice", "Zürich", "", "Kyiv", "Porto"]
        for file in 1...5 {
            let lines = (0..<(file == 5 ? 240 : 60)).map { index -> String in
                let id = file * 1_000 + index
                let name = names[(index * 5 + file) % names.count]
                let code = index % 9 == 4 ? "null" : "\"C\((index * 7 + file * 3) % 97)\""
                let lat = 40 + Double((index + file) % 4) * 0.5
                let score = (index * 13 + file * 5) % 11
                return #"{"id": \#(id), "name": "\#(name)", "lat": \#(lat), "score": \#(score), "code": \#(code)}"#
            }
            try dir.write("towns-\(file).ndjson", lines.joined(separator: "\n") + "\n")
        }
    }

    /// The partials merged at once and regrouped (the rest in reverse order with the merged
    /// head that `expectTreeUnderALimitMatchesPlain` left): the same bytes either way; the
    /// merged partial, read.
    static func mergedInAnyGrouping(_ parts: [String], in dir: TempDir) throws -> Partial {
        let all = dir.path + "/all-at-once"
        let regrouped = dir.path + "/regrouped"
        #expect(try CLI.run(["merge"] + parts + ["--partial", all, "--quiet"]).status == 0)
        let rest = parts.count > 2 ? Array(parts[2...].reversed()) : []
        #expect(try CLI.run(["merge"] + rest + [dir.path + "/head", "--partial", regrouped, "--quiet"]).status == 0)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: all + "/partial.bin"))
                == Data(contentsOf: URL(fileURLWithPath: regrouped + "/partial.bin")))
        return try Partial.read(all)
    }

    /// A validate block with `unique` rules (an error, and a warning on two fields) among
    /// record-by-record rules: the shards run the others and ship their findings unsettled,
    /// the finish compares keys across shards, and rejects, warnings (the messages naming
    /// the record that holds the key first, in another shard or not), counts and the
    /// dataset are the plain run's, whole or split into byte ranges, in one merge or a
    /// tree under a memory limit that spills; a threshold on the `unique` rule fails the
    /// finish as it fails the plain run.
    @Test(arguments: [1, 2, 3, 7])
    func aUniqueRuleBegunInTheShardsIsComparedAcrossShardsInTheFinish(count: Int) throws {
        let dir = try TempDir()
        try Self.writeRepeatingTowns(in: dir)
        func pipeline(_ threshold: String) throws -> String {
            try dir.write(
                "towns.yml",
                """
                \(Self.townsSource)
                steps:
                  - validate: required
                    collection: towns
                    field: name
                  - validate: unique
                    collection: towns
                    field: code\(threshold)
                  - validate: range
                    collection: towns
                    field: score
                    max: 8
                  - validate: unique
                    collection: towns
                    field: [name, lat]
                    severity: warning
                  - validate: range
                    collection: towns
                    field: score
                    min: 1
                    severity: warning
                  - normalize: trim
                    collection: towns
                    field: name
                  - aggregate: sort
                    collection: towns
                    by: [name, id]
                outputs:
                  - {file: towns.ndjson, collection: towns}
                thresholds:
                  max-reject-fraction: 1
                """)
        }
        let path = try pipeline("")
        let plain = try CLI.run(["run", path, "--out", dir.path + "/plain", "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let parts = try shards(path, count: count, in: dir, ["--split-files-over", "4KiB"])
        // The shards ran the block (5 steps) and left its findings unsettled.
        let partials = try parts.map { try Partial.read($0) }
        #expect(partials.allSatisfy { $0.identity.split == 5 && !$0.pending.isEmpty })
        // With every record's key hashes for the two unique rules, which the finish compares.
        #expect(partials.allSatisfy { $0.segments.allSatisfy { $0.keys?.count == 18 * $0.count } })
        #expect(partials.allSatisfy { $0.entries.allSatisfy { $0.phase == 0 } }, "settled in a shard")
        let flat = try CLI.run(["merge"] + parts.reversed() + ["--out", dir.path + "/flat", "--verbose"])
        #expect(flat.status == 0, "\(flat.stderr)")
        #expect(flat.stderr.contains("(begun in the shards, compared in the finish)"), "\(flat.stderr)")
        Self.expectSameDataset(
            dir.url.appendingPathComponent("plain/towns"), dir.url.appendingPathComponent("flat/towns"),
            "unique begun in \(count) shards")
        if count >= 2 {
            try Self.expectTreeUnderALimitMatchesPlain(
                parts, in: dir, dataset: "towns", "unique begun in \(count) shards, merged as a tree under a limit")
        }
        // Repeated keys there are, rejected naming a record of another file, some of them
        // also rejected by another rule, and records rejected by another rule hold keys.
        let rejects = try dir.read("plain/towns/rejects.ndjson").split(separator: "\n")
        let repeated = rejects.filter { $0.contains("is already used by the record at") }
        #expect(repeated.count > 50, "\(repeated.count) repeated codes")
        #expect(repeated.contains { $0.contains("towns-1.ndjson") && $0.contains(#""file":"towns-5.ndjson""#) })
        #expect(repeated.contains { $0.contains(#""rule":"range""#) }, "\(repeated.prefix(2))")
        let warnings = try dir.read("plain/towns/warnings.ndjson")
        #expect(warnings.contains("name + lat"), "\(warnings.prefix(300))")

        // A threshold on the merged count of the unique rule fails both runs alike.
        let strict = try pipeline("\n    max-rejects: 3")
        let failing = try CLI.run(["run", strict, "--out", dir.path + "/plain-strict", "--quiet"])
        let strictDir = try TempDir()
        let strictParts = try shards(strict, count: count, in: strictDir)
        let finished = try CLI.run(["merge"] + strictParts + ["--out", dir.path + "/strict", "--quiet"])
        #expect(failing.status == 1 && finished.status == 1, "\(failing.stderr) \(finished.stderr)")
        #expect(finished.stderr.contains("more than its max-rejects 3"), "\(finished.stderr)")
    }

    /// A group-stats the finish starts with, begun in the shards: groups whose records are
    /// in every shard, counts, exact
    /// means and sums of numbers and decimals (with and without `where`), `min`, `max` and
    /// `mode` with ties between `4` and `4.0` give the plain run's statistics, whole or split
    /// into byte ranges, in one merge or a tree under a memory limit that spills. A sum
    /// that is not order-free (a value of 1e300 among small ones: its exact digits do not
    /// fit) leaves the step to the finish, which runs it on the records: the same bytes.
    @Test(arguments: [false, true], [1, 2, 3, 7])
    func aGroupStatsBegunInTheShardsMergesTheShardsSummaries(huge: Bool, count: Int) throws {
        let dir = try TempDir()
        let names = ["Ålborg", "alborg", "ALBORG", "Lviv", "lviv", "Zürich", "zurich", "Nice", "Oslo"]
        let ranks = ["4", "4.0", "2.5", "null", "\"4\"", "7", "2.50", "1"]
        for file in 1...5 {
            let lines = (0..<(file == 5 ? 240 : 60)).map { index -> String in
                let id = file * 1_000 + index
                let name = names[(index * 7 + file * 3) % names.count]
                let lat =
                    huge && file == 3 && index == 7 ? "1e300" : "\(40 + Double((index * index + file) % 11) * 0.013)"
                let score = (index + file) % 5 == 0 ? "null" : "\((index * 13 + file * 5) % 9)"
                let rank = ranks[(index * 5 + file) % ranks.count]
                let price = "\((index * 37 + file) % 1000 / 100).\((index * 7) % 10)5"
                let open = (index / 2 + file) % 3 == 0 ? "true" : (index / 2 + file) % 3 == 1 ? "false" : "null"
                return
                    #"{"id": \#(id), "name": "\#(name)", "lat": \#(lat), "score": \#(score), "rank": \#(rank), "price": \#(price), "open": \#(open)}"#
            }
            try dir.write("towns-\(file).ndjson", lines.joined(separator: "\n") + "\n")
        }
        let pipeline = try dir.write(
            "towns.yml",
            """
            name: towns
            sources:
              towns:
                kind: ndjson
                path: towns-*.ndjson
                id: id
                fields: {id: integer, name: string, lat: number, score: integer, rank: any, price: decimal, open: boolean}
            steps:
              - normalize: trim
                collection: towns
                field: name
              - aggregate: group-stats
                collection: towns
                by: name
                into: stats
                metrics:
                  towns: count
                  open: {count-where: open}
                  meanLat: {mean: lat}
                  openLat: {mean: lat, where: open}
                  scores: {sum: score}
                  meanScore: {mean: score}
                  prices: {sum: price}
                  meanPrice: {mean: price, where: open}
                  low: {min: rank}
                  high: {max: rank}
                  usual: {mode: rank}
                  lowName: {min: name}
              - aggregate: sort
                collection: towns
                by: [name, id]
            outputs:
              - {file: towns.ndjson, collection: towns}
              - {file: stats.ndjson, collection: stats}
            """)
        let plain = try CLI.run(["run", pipeline, "--out", dir.path + "/plain", "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let parts = try shards(pipeline, count: count, in: dir, ["--split-files-over", "4KiB"])
        let partials = try parts.map { try Partial.read($0) }
        // Each shard summarised its groups, unless a sum of its own is not order-free.
        let begun = partials.map { $0.groupsComplete && !$0.groups.isEmpty }
        if huge {
            #expect(begun.filter { !$0 }.count == 1, "\(begun)")
        } else {
            #expect(begun.allSatisfy { $0 }, "\(begun)")
        }
        let flat = try CLI.run(["merge"] + parts.reversed() + ["--out", dir.path + "/flat", "--verbose"])
        #expect(flat.status == 0, "\(flat.stderr)")
        #expect(flat.stderr.contains("groups (begun in the shards)") == !huge, "\(flat.stderr)")
        Self.expectSameDataset(
            dir.url.appendingPathComponent("plain/towns"), dir.url.appendingPathComponent("flat/towns"),
            "group-stats begun in \(count) shards")
        if count >= 2 {
            try Self.expectTreeUnderALimitMatchesPlain(
                parts, in: dir, dataset: "towns", "group-stats begun in \(count) shards, merged as a tree under a limit"
            )
            // Merged partials: one summary a group, the same bytes from any grouping and order.
            let merged = try Self.mergedInAnyGrouping(parts, in: dir)
            #expect(merged.groupsComplete == !huge)
            #expect(merged.groups.count == (huge ? 0 : names.count), "\(merged.groups.map(\.key))")
        }
        let stats = try dir.read("plain/towns/stats.ndjson").split(separator: "\n")
        // One group per spelling (grouping folds no case), each with records in every file.
        #expect(stats.count == names.count, "\(stats)")
    }

    /// A rating-summary the finish starts with, begun in the shards: shops and their
    /// reviews in every shard (files split into byte ranges), decimal ratings with a mean
    /// rounded half away from zero, reviews without a numeric rating, and keys spelt in NFC
    /// and NFD give the plain run's shops, reviews, rejects and counts, in one merge or a
    /// tree under a memory limit that spills; merged partials hold one total a key, the
    /// same bytes in any grouping. With `orphans`, reviews of a missing shop, of a shop
    /// the shards' validation rejected and without a key are rejected in the finish in a
    /// plain run's order; with `huge`, a rating of 1e300 among small ones (a sum that is
    /// not order-free) leaves the step to the finish, which runs it on the records.
    @Test(arguments: ["matched", "orphans", "huge"], [1, 2, 3, 7])
    func aRatingSummaryBegunInTheShardsAddsUpTheShardsTotals(variant: String, count: Int) throws {
        let dir = try TempDir()
        // 4 files of 50 shops; codes S0...S199, every tenth "café-N" (NFC).
        func code(_ number: Int) -> String { number % 10 == 3 ? "caf\u{E9}-\(number)" : "S\(number)" }
        for file in 0..<4 {
            let lines = (0..<50).map { index -> String in
                let number = file * 50 + index
                let seed = variant == "orphans" && number % 40 == 17 ? "7" : "\(Double(number % 9) * 0.5 + 0.5)"
                return #"{"code": "\#(code(number))", "name": "Shop \#(number)", "rating": \#(seed)}"#
            }
            try dir.write("shops-\(file).ndjson", lines.joined(separator: "\n") + "\n")
        }
        // 4 files of 150 reviews of shops in every file.
        var keys: Set<Int> = []
        for file in 0..<4 {
            let lines = (0..<150).map { index -> String in
                let number = (index * 37 + file * 13) % 200
                // Half the reviews of a café name it in NFD.
                var shop = "\"\(code(number))\""
                if number % 10 == 3, index % 2 == 1 { shop = "\"cafe\u{301}-\(number)\"" }
                if variant == "orphans", index % 50 == 7 {
                    shop = file % 2 == 0 ? "\"S9999\"" : "null"
                } else {
                    keys.insert(number)
                }
                var rating = index % 11 == 5 ? "null" : "\(Double((index * 7 + file) % 10) * 0.5 + 0.5)"
                if variant == "huge", file == 2, index == 40 { rating = "1e300" }
                return #"{"id": \#(file * 1_000 + index), "shopCode": \#(shop), "rating": \#(rating)}"#
            }
            try dir.write("reviews-\(file).ndjson", lines.joined(separator: "\n") + "\n")
        }
        let pipeline = try dir.write(
            "shops.yml",
            """
            name: shops
            sources:
              shops:
                kind: ndjson
                path: shops-*.ndjson
                id: code
                fields: {code: string, name: string, rating: number}
              reviews:
                kind: ndjson
                path: reviews-*.ndjson
                id: id
                fields: {id: integer, shopCode: string, rating: number}
            steps:
              - validate: range
                collection: shops
                field: rating
                min: 0
                max: 5
              - enrich: rating-summary
                collection: shops
                key: code
                from: reviews
                foreign-key: shopCode
                rating: rating
                seed-rating: rating
                decimals: 2
              - aggregate: sort
                collection: shops
                by: code
            outputs:
              - {file: shops.ndjson, collection: shops}
              - {file: reviews.ndjson, collection: reviews}
            thresholds:
              max-reject-fraction: 0.5
            """)
        let plain = try CLI.run(["run", pipeline, "--out", dir.path + "/plain", "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let parts = try shards(pipeline, count: count, in: dir, ["--split-files-over", "4KiB"])
        let partials = try parts.map { try Partial.read($0) }
        // Each shard summed its reviews, unless a sum of its own is not order-free.
        let begun = partials.map { $0.ratingsComplete && !$0.ratings.isEmpty }
        #expect(begun.filter { !$0 }.count == (variant == "huge" ? 1 : 0), "\(begun)")
        let flat = try CLI.run(["merge"] + parts.reversed() + ["--out", dir.path + "/flat", "--verbose"])
        #expect(flat.status == 0, "\(flat.stderr)")
        #expect(flat.stderr.contains("(begun in the shards)") == (variant != "huge"), "\(flat.stderr)")
        Self.expectSameDataset(
            dir.url.appendingPathComponent("plain/shops"), dir.url.appendingPathComponent("flat/shops"),
            "rating-summary begun in \(count) shards (\(variant))")
        if count >= 2 {
            try Self.expectTreeUnderALimitMatchesPlain(
                parts, in: dir, dataset: "shops", "rating-summary begun in \(count) shards (\(variant)), as a tree")
            // Merged partials: one total a key, the same bytes from any grouping and order.
            let merged = try Self.mergedInAnyGrouping(parts, in: dir)
            #expect(merged.ratingsComplete == (variant != "huge"))
            if variant != "huge" {
                // A key per shop with reviews (NFC and NFD one key); orphans: S9999 and null.
                #expect(merged.ratings.count == keys.count + (variant == "orphans" ? 2 : 0), "\(merged.ratings)")
                #expect(Set(merged.ratings.map(\.key)).count == merged.ratings.count)
            }
        }
        let rejects = try dir.read("plain/shops/rejects.ndjson")
        if variant == "orphans" {
            #expect(rejects.contains("does not match the code of any shops record"), "\(rejects)")
            #expect(rejects.contains("which was rejected"), "\(rejects)")
        }
    }

    @Test func aSyntaxErrorInASplitFileFailsEveryShardWithTheSameMessage() throws {
        let dir = try TempDir()
        for index in 0..<3 {
            let result = try CLI.run([
                "run", "Fixtures/validation/validation.yml", "--shard", "\(index)/3", "--partial",
                dir.path + "/p\(index)", "--split-files-over", "1",
            ])
            #expect(result.status == 1)
            #expect(result.stderr.contains("shops-4.json:3:27: error: unterminated string"), "\(result.stderr)")
        }
    }

    /// A gzip-compressed file is known by its first bytes, whatever its name: it is read
    /// whole by one shard (its byte ranges would be the compressed file's).
    @Test func aCompressedFileIsNeverSplitWhateverItsName() throws {
        let dir = try TempDir()
        let lines = (0..<500).map { #"{"id": \#($0), "name": "City \#($0)", "rating": \#(Double($0 % 50) / 10)}"# }
        try dir.write("data.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try CLI.runProgram("/bin/gzip", ["-n", dir.path + "/data.ndjson"]).status == 0)
        try FileManager.default.moveItem(atPath: dir.path + "/data.ndjson.gz", toPath: dir.path + "/data.ndjson")
        let pipeline = try dir.write(
            "gz.yml",
            """
            name: gz
            sources:
              cities:
                kind: ndjson
                path: data.ndjson
                id: id
                fields: {id: integer, name: string, rating: number}
            steps:
              - validate: range
                collection: cities
                field: rating
                max: 4
            outputs:
              - {file: cities.ndjson, collection: cities}
            thresholds:
              max-reject-fraction: 1
            """)
        #expect(try CLI.run(["run", pipeline, "--out", dir.path + "/plain", "--quiet"]).status == 0)
        let parts = try shards(pipeline, count: 3, in: dir, ["--split-files-over", "1"])
        #expect(try CLI.run(["merge"] + parts + ["--out", dir.path + "/sharded", "--quiet"]).status == 0)
        Self.expectSameDataset(
            dir.url.appendingPathComponent("plain/gz"), dir.url.appendingPathComponent("sharded/gz"),
            "a gzip file named .ndjson")
        let kept = try dir.read("sharded/gz/cities.ndjson").split(separator: "\n").count
        #expect(kept == 410)  // 90 of the 500 ratings are over 4
    }

    @Test func aPartialFolderHoldingOtherFilesIsNotReplaced() throws {
        let dir = try TempDir()
        try dir.write("mine/notes.txt", "keep me")
        let run = try CLI.run(["run", "pipelines/honey-shops.yml", "--shard", "0/2", "--partial", dir.path + "/mine"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("holds other files than a partial's (notes.txt)"), "\(run.stderr)")
        #expect(try dir.read("mine/notes.txt") == "keep me")
        let parts = try shards("pipelines/honey-shops.yml", count: 2, in: dir)
        let merge = try CLI.run(["merge"] + parts + ["--partial", dir.path + "/mine"])
        #expect(merge.status == 2)
        #expect(try dir.read("mine/notes.txt") == "keep me")
        // A partial there is replaced.
        #expect(try CLI.run(["merge"] + parts + ["--partial", parts[0], "--quiet"]).status == 0)
    }

    @Test func aMissingOrRepeatedShardIsNamedAndNothingIsWritten() throws {
        let dir = try TempDir()
        let parts = try shards("pipelines/cities.yml", count: 3, in: dir)
        let missing = try CLI.run(["merge", parts[0], parts[2], "--out", dir.path + "/out"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("shard 1 of 3 missing"), "\(missing.stderr)")
        #expect(missing.stderr.contains("--shard 1/3"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out/cities"))

        let twice = try CLI.run(["merge", parts[0], parts[0], parts[1], parts[2], "--out", dir.path + "/out"])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("shard 0/3 is in both"), "\(twice.stderr)")

        let otherDir = try TempDir()
        let other = try shards("pipelines/cities.yml", count: 2, in: otherDir)
        let mixed = try CLI.run(["merge", parts[0], other[1], "--partial", dir.path + "/mixed"])
        #expect(mixed.status == 2)
        #expect(mixed.stderr.contains("is a share of 2 shards"), "\(mixed.stderr)")
    }

    @Test func aPartialOfAnotherDefinitionOrInputSetIsRefused() throws {
        let dir = try TempDir()
        let fixture = CLI.repoRoot.appendingPathComponent("Fixtures/honey-shops")
        try FileManager.default.copyItem(at: fixture, to: dir.url.appendingPathComponent("honey-shops"))
        var yaml = try String(
            contentsOf: CLI.repoRoot.appendingPathComponent("pipelines/honey-shops.yml"), encoding: .utf8)
        yaml = yaml.replacingOccurrences(of: "../Fixtures/", with: "")
        let pipeline = try dir.write("honey-shops.yml", yaml)
        let parts = try shards(pipeline, count: 2, in: dir)

        // The definition edited after the shards ran.
        try dir.write("honey-shops.yml", yaml + "\n# edited\n")
        let edited = try CLI.run(["merge"] + parts + ["--out", dir.path + "/out"])
        #expect(edited.status == 2)
        #expect(edited.stderr.contains("another pipeline definition"), "\(edited.stderr)")

        // An input file changed after the shards ran.
        try dir.write("honey-shops.yml", yaml)
        let seed = try #require(
            try FileManager.default.contentsOfDirectory(atPath: dir.path + "/honey-shops").first {
                $0.hasSuffix(".json")
            })
        let seedPath = dir.path + "/honey-shops/" + seed
        try (try String(contentsOfFile: seedPath, encoding: .utf8) + "\n").write(
            toFile: seedPath, atomically: true, encoding: .utf8)
        let changed = try CLI.run(["merge"] + parts + ["--out", dir.path + "/out"])
        #expect(changed.status == 2)
        #expect(changed.stderr.contains("another set of input files"), "\(changed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out/honey-shops"))
    }

    /// A shard names its build by the linker's build ID (as `readelf -n` shows it), read from
    /// memory instead of hashing the executable; the same binary with another build ID is
    /// another build, and its partial is refused.
    @Test func aPartialOfAnotherBuildIsRefused() throws {
        let dir = try TempDir()
        let parts = try shards("pipelines/honey-shops.yml", count: 2, in: dir)
        let notes = try CLI.runProgram("/usr/bin/readelf", ["-n", CLI.binary])
        let line = try #require(
            notes.stdout.split(separator: "\n").first { $0.contains("Build ID:") }, "\(notes.stderr)")
        let buildID = String(try #require(line.split(separator: " ").last))
        let described = try String(contentsOfFile: parts[0] + "/partial.json", encoding: .utf8)
        #expect(described.contains("\"seedforge\": \"\(SeedForgeVersion.current)+\(buildID)\""), "\(described)")

        // The same executable with one byte of its build ID changed.
        var executable = try Data(contentsOf: URL(fileURLWithPath: CLI.binary))
        let idBytes = Data(
            stride(from: 0, to: buildID.count, by: 2).map { offset -> UInt8 in
                let start = buildID.index(buildID.startIndex, offsetBy: offset)
                return UInt8(buildID[start..<buildID.index(start, offsetBy: 2)], radix: 16)!
            })
        let found = try #require(executable.range(of: idBytes))
        executable[found.lowerBound] ^= 0xff
        let other = dir.path + "/seedforge-other"
        try executable.write(to: URL(fileURLWithPath: other))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: other)
        let otherPart = dir.path + "/parts/other"
        let shard = try CLI.runProgram(
            other, ["run", "pipelines/honey-shops.yml", "--shard", "1/2", "--partial", otherPart],
            cwd: CLI.repoRoot.path)
        #expect(shard.status == 0, "\(shard.stderr)")
        let merged = try CLI.run(["merge", parts[0], otherPart, "--out", dir.path + "/out"])
        #expect(merged.status == 2)
        #expect(merged.stderr.contains("run every shard with the same build"), "\(merged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out/honey-shops"))
    }

    @Test func aShardWithAMalformedFileFailsWithItsLocation() throws {
        let dir = try TempDir()
        let pipeline = "Fixtures/validation/validation.yml"
        var failed = 0
        for index in 0..<3 {
            let result = try CLI.run(["run", pipeline, "--shard", "\(index)/3", "--partial", dir.path + "/p\(index)"])
            if result.status == 1 {
                failed += 1
                #expect(result.stderr.contains("shops-4.json:3:27: error: unterminated string"), "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: dir.path + "/p\(index)"))
            } else {
                #expect(result.status == 0, "\(result.stderr)")
            }
        }
        #expect(failed == 1)
    }

    @Test func badArgumentsAreUsageErrors() throws {
        let dir = try TempDir()
        for (arguments, message) in [
            (["run", "pipelines/cities.yml", "--shard", "3/3", "--partial", dir.path], "from 0 to 2"),
            (["run", "pipelines/cities.yml", "--shard", "half", "--partial", dir.path], "write I/N"),
            (["run", "pipelines/cities.yml", "--shard", "0/2"], "--shard and --partial go together"),
            (["merge", dir.path], "either --partial DIR"),
            (["run", "pipelines/cities.yml", "--split-files-over", "1MiB"], "--split-files-over needs --shard"),
            (["run", "pipelines/cities.yml", "--shard", "1/0", "--partial", dir.path], "at least 1"),
            (
                ["run", "pipelines/cities.yml", "--shard", "0/2", "--partial", dir.path, "--split-files-over", "big"],
                "--split-files-over must be a size"
            ),
            (["merge", dir.path, "--partial", dir.path + "/x"], "is not a partial"),
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        // A damaged partial.
        let parts = try shards("pipelines/honey-shops.yml", count: 1, in: dir)
        let file = parts[0] + "/partial.bin"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: file))
        let damaged = try CLI.run(["merge", parts[0], "--out", dir.path + "/out"])
        #expect(damaged.status == 2)
        #expect(damaged.stderr.contains("cut short or damaged"), "\(damaged.stderr)")
    }

    @Test func unitsAreSplitIntoContiguousSharesThatCoverEveryFileOnce() {
        for units in [0, 1, 2, 5, 42] {
            for count in [1, 2, 3, 7] {
                var owners = [Int](repeating: 0, count: units)
                for index in 0..<count {
                    let shard = Shard(index: index, count: count)
                    for unit in 0..<units where shard.reads(unit: unit, of: units) { owners[unit] += 1 }
                }
                #expect(owners.allSatisfy { $0 == 1 }, "\(units) units, \(count) shards")
            }
        }
    }
}
