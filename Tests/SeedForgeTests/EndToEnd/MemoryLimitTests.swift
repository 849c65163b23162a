import Foundation
import Testing

@testable import SeedForge

/// Runs past their memory limit: the same bytes as without one, a large file read in
/// windows, a killed run's spill folder cleaned, clear errors for bad sizes. (The shipped
/// datasets under a limit are checked against their golden copies in
/// `ShippedDatasetsGoldenTests`.)
@Suite("End to end: memory limit")
struct MemoryLimitTests {
    /// The dataset a run of `pipeline` in `dir` writes into `out` (every file of the dataset
    /// `name` but its manifest, whose `run` section differs from run to run), once the run
    /// succeeded and its `-v` log passed `log`'s expectations.
    static func dataset(
        of pipeline: String, name: String, in dir: TempDir, out: String, _ arguments: [String] = [],
        log: (String) -> Void = { _ in }
    ) throws -> [String: Data] {
        let result = try CLI.run(["run", pipeline, "--out", out, "-v"] + arguments, cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        log(result.stderr)
        var files = try HoneyShopsEndToEndTests.snapshot(dir.path + "/\(out)/\(name)")
        files.removeValue(forKey: "manifest.json")
        return files
    }

    static func prepared() throws -> TempDir {
        let dir = try TempDir()
        try dir.write("many.yml", ThreadsTests.pipeline)
        try dir.write("cities.json", ThreadsTests.dump())
        return dir
    }

    /// Several outputs of one collection (one with `where`) and the snapshot read its
    /// spilled batches side by side, each batch decoded once for all of them.
    @Test func aLimitSmallerThanTheDataGivesTheSameDatasetForAnyThreadCount() throws {
        let dir = try Self.prepared()
        try dir.write(
            "many.yml",
            ThreadsTests.pipeline.replacingOccurrences(
                of: "\nthresholds:",
                with: "\n  - {file: equator.ndjson, collection: cities, where: {latitude: [0.5, -0.5]}}\nthresholds:"))
        let plain = try CLI.run(["run", "many.yml", "--out", "plain", "--quiet"], cwd: dir.path)
        #expect(plain.status == 0, "\(plain.stderr)")
        var expected = try HoneyShopsEndToEndTests.snapshot(dir.path + "/plain/many")
        expected.removeValue(forKey: "manifest.json")
        #expect(expected["equator.ndjson"]?.isEmpty == false)
        #expect(expected["snapshot.ndjson"]?.isEmpty == false)
        for threads in ["1", "2", "3"] {
            // 256 KiB: the 1.7 MB file is read in windows, and records spill in batches of 256.
            let limited = try CLI.run(
                ["run", "many.yml", "--out", "t\(threads)", "--threads", threads, "--memory-limit", "256KiB", "-v"],
                cwd: dir.path)
            #expect(limited.status == 0, "\(limited.stderr)")
            #expect(limited.stderr.contains("many: memory limit 256 KiB: "), "\(limited.stderr)")
            // Dedupe and sort hold keys, not the records: nothing held the collection whole.
            #expect(!limited.stderr.contains("held all"), "\(limited.stderr)")
            #expect(
                limited.stderr.contains("for the outputs and the snapshot"), "\(limited.stderr)")
            var actual = try HoneyShopsEndToEndTests.snapshot(dir.path + "/t\(threads)/many")
            actual.removeValue(forKey: "manifest.json")
            #expect(actual == expected, "--threads \(threads) under a memory limit differs")
        }
        // The pipeline key does the same, and the command line overrides it.
        try dir.write("many.yml", ThreadsTests.pipeline + "\nlimits: {max-memory: 256KiB}\n")
        let keyed = try CLI.run(["run", "many.yml", "--out", "keyed", "-v"], cwd: dir.path)
        #expect(keyed.stderr.contains("many: memory limit 256 KiB: "), "\(keyed.stderr)")
        let overridden = try CLI.run(
            ["run", "many.yml", "--out", "big", "-v", "--memory-limit", "1GiB"], cwd: dir.path)
        #expect(overridden.status == 0)
        #expect(!overridden.stderr.contains("memory limit"), "\(overridden.stderr)")
    }

    /// Ingest moves runs of parsed records into the store in bulk, runs that end where a
    /// thread's chunk ends; the memory limit is still checked at the same record counts,
    /// so the same records spill in the same batches whatever the thread count.
    @Test func recordsSpillInTheSameBatchesForAnyThreadCount() throws {
        let spills = try Self.spills(
            in: try Self.prepared(), pipeline: "many.yml", limit: "256KiB", line: "many: memory limit 256 KiB: ")
        #expect(spills["2"] == spills["1"])
        #expect(spills["3"] == spills["1"])
    }

    /// The log line saying what the memory limit wrote to disk (the one containing `line`),
    /// by thread count, for runs of `pipeline` at 1, 2 and 3 threads under `limit`.
    static func spills(in dir: TempDir, pipeline: String, limit: String, line: String) throws -> [String: String] {
        var spills: [String: String] = [:]
        for threads in ["1", "2", "3"] {
            let limited = try CLI.run(
                ["run", pipeline, "--out", "t\(threads)", "--threads", threads, "--memory-limit", limit, "-v"],
                cwd: dir.path)
            #expect(limited.status == 0, "\(limited.stderr)")
            let found = limited.stderr.split(separator: "\n").first { $0.contains(line) }
            #expect(found?.contains("written to disk in") == true, "\(limited.stderr)")
            spills[threads] = found.map(String.init)
        }
        return spills
    }

    /// The same when every record carries a warning (an undeclared field, `unknown-fields:
    /// warn`): none is a plain record whose size the merge could sample, and a merge of
    /// them all at once spilled later on two threads than on one (a review found it).
    @Test func recordsWithWarningsSpillInTheSameBatchesForAnyThreadCount() throws {
        let dir = try TempDir()
        // 1.7 MB: read in windows of 1 MiB, the first of which fits in a quarter of the limit.
        let records = (0..<20_000).map { id in
            let values = "abcdefg".enumerated().map { #""\#($0.element)":\#(id + $0.offset)"# }
            return #"{"id":\#(id),\#(values.joined(separator: ",")),"x":1}"#
        }
        try dir.write("u.json", "[\n" + records.joined(separator: ",\n") + "\n]\n")
        try dir.write(
            "u.yml",
            """
            name: uf
            sources:
              uf:
                kind: json
                path: u.json
                id: id
                unknown-fields: warn
                fields: {id: integer, a: integer, b: integer, c: integer, d: integer, e: integer, f: integer, g: integer}
            outputs:
              - file: uf.ndjson
                collection: uf
            """)
        let spills = try Self.spills(in: dir, pipeline: "u.yml", limit: "2MiB", line: "uf: memory limit 2 MiB: ")
        #expect(spills["2"] == spills["1"])
        #expect(spills["3"] == spills["1"])
    }

    /// Every fixture pipeline (csv, keyed records, unnest, html lists, exact numbers...)
    /// writes the same files under a limit of one byte, which spills every record.
    @Test func everyFixturePipelineWritesTheSameFilesWhenEveryRecordIsSpilled() throws {
        let fixtures = CLI.repoRoot.appendingPathComponent("Fixtures")
        let folders = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted()
        var pipelines: [String] = []
        for folder in folders {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path + "/" + folder)) ?? []
            for file in files.sorted() where file.hasSuffix(".yml") && !file.hasSuffix(".test.yml") {
                pipelines.append("Fixtures/\(folder)/\(file)")
            }
        }
        #expect(pipelines.count >= 6)
        let dir = try TempDir()
        for pipeline in pipelines {
            let plain = try CLI.run(["run", pipeline, "--out", dir.path + "/plain", "--quiet"])
            let spilled = try CLI.run(["run", pipeline, "--out", dir.path + "/spilled", "--memory-limit", "1", "-v"])
            #expect(plain.status == spilled.status, "\(pipeline): \(spilled.stderr)")
            guard plain.status == 0 else { continue }
            #expect(spilled.stderr.contains("memory limit 1 byte: "), "\(pipeline) did not spill")
        }
        var expected = try HoneyShopsEndToEndTests.snapshot(dir.path + "/plain")
        var actual = try HoneyShopsEndToEndTests.snapshot(dir.path + "/spilled")
        for key in expected.keys where key.hasSuffix("manifest.json") { expected.removeValue(forKey: key) }
        for key in actual.keys where key.hasSuffix("manifest.json") { actual.removeValue(forKey: key) }
        #expect(!expected.isEmpty)
        #expect(actual == expected)
    }

    /// A spilled dedupe drops its losers from the spilled batches as bytes and encodes a
    /// winner again only when it takes a `fill` field; a sort moves records as bytes and
    /// leaves the collection on disk for the step after it. Duplicates sit in one stretch
    /// of the file, so most batches hold none (kept as they are) and some hold many.
    @Test func aSpilledDedupeWithFillAndASortGiveTheSameFilesAsWithoutALimit() throws {
        let dir = try TempDir()
        var lines: [String] = []
        for id in 0..<12_000 {
            let code = (3_000..<3_600).contains(id) ? 100_000 + id % 250 : id
            // Winners (the lowest id of a code) lack a rating a later duplicate has.
            let rating = (3_000..<3_250).contains(id) || id % 7 == 0 ? "null" : String(Double(id % 50) / 10)
            lines.append(
                #"{"id": \#(id), "code": \#(code), "name": " Place  \#(id % 4_000) Ōsaka ", "rating": \#(rating)}"#)
        }
        try dir.write("places.json", "[\n" + lines.joined(separator: ",\n") + "\n]\n")
        try dir.write(
            "places.yml",
            """
            name: places
            sources:
              places:
                kind: json
                path: places.json
                id: id
                fields:
                  id: integer
                  code: integer
                  name: string
                  rating: number
            steps:
              - {aggregate: dedupe, collection: places, by: code, keep: lowest, keep-by: id, fill: [rating]}
              - aggregate: sort
                collection: places
                by: [name, {field: rating, order: desc}, id]
              - {normalize: trim, collection: places, field: name, collapse-whitespace: true}
              - {normalize: search-key, collection: places, from: name, field: key}
            outputs:
              - {file: places.json, collection: places}
              - {file: places.ndjson, collection: places}
            """)
        let expected = try Self.dataset(of: "places.yml", name: "places", in: dir, out: "plain")
        #expect(try dir.read("plain/places/duplicates.ndjson").contains(#""filled":["rating"]"#))
        // Under 4 KiB every batch of 4 records is a run (3,000 of them), more than a merge
        // reads at once: they are merged into longer runs first (`SortedRuns.bounded`), the
        // dedupe's down to fewer for more threads (one merge a thread), in several passes.
        for (limit, threads) in [("64KiB", "1"), ("64KiB", "3"), ("4KiB", "1"), ("4KiB", "2"), ("4KiB", "5")] {
            let actual = try Self.dataset(
                of: "places.yml", name: "places", in: dir, out: "t\(threads)-\(limit)",
                ["--threads", threads, "--memory-limit", limit]
            ) { log in
                #expect(log.contains("memory limit \(limit.dropLast(3)) KiB: "), "\(log)")
                #expect(!log.contains("held all"), "\(log)")
            }
            #expect(actual == expected, "--threads \(threads) under a memory limit of \(limit) differs")
        }
    }

    @Test func aSyntaxErrorLateInALargeFileTakesNoRecordAndKeepsThePreviousDataset() throws {
        let dir = try Self.prepared()
        let first = try CLI.run(["run", "many.yml", "--out", "out", "--quiet"], cwd: dir.path)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/many")
        // A missing comma near the end of the file, read in windows under the limit.
        var text = ThreadsTests.dump()
        let cut = text.range(
            of: "},\n", options: .backwards, range: text.startIndex..<text.index(text.endIndex, offsetBy: -500))!
        // The parser stops at the next record's first byte: the line after the cut.
        let line = text[..<cut.lowerBound].filter { $0 == "\n" }.count + 2
        #expect(line > 11_000)
        text.replaceSubrange(cut, with: "}\n")
        try dir.write("cities.json", text)
        let failed = try CLI.run(["run", "many.yml", "--out", "out", "--memory-limit", "256KiB"], cwd: dir.path)
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("cities.json:\(line):"), "\(failed.stderr)")
        #expect(try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/many") == before)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out/.many.spill"))
        // Validation reports the file once and takes none of its records.
        let validated = try CLI.run(
            ["validate", "many.yml", "--format", "json", "--memory-limit", "256KiB"], cwd: dir.path)
        #expect(validated.status == 1)
        #expect(validated.stdout.contains("\"rule\": \"json-syntax\""), "\(validated.stdout)")
        #expect(validated.stdout.contains("\"errors\": 1,"), "the file's records were taken: \(validated.stdout)")
    }

    /// A run takes a large file's records as it parses them (an error of the file fails the
    /// run anyway) instead of checking the file's syntax in a pass of its own first; on an
    /// error the whole file is checked then, so a syntax error late in the file is still
    /// the error reported, not a record too large before it that the parse met first.
    @Test func aSyntaxErrorLateInALargeFileWinsOverAnEarlierRecordTooLarge() throws {
        let dir = try Self.prepared()
        try dir.write("many.yml", ThreadsTests.pipeline + "\nlimits: {max-record-bytes: 4KiB}\n")
        var text = ThreadsTests.dump()
        let cut = text.range(
            of: "},\n", options: .backwards, range: text.startIndex..<text.index(text.endIndex, offsetBy: -500))!
        let line = text[..<cut.lowerBound].filter { $0 == "\n" }.count + 2
        text.replaceSubrange(cut, with: "}\n")
        // The third record's name made longer than the record limit allows.
        text.replaceSubrange(text.range(of: "City 2 ")!, with: "City 2 " + String(repeating: "x", count: 5_000))
        try dir.write("cities.json", text)
        for threads in ["1", "3"] {
            let failed = try CLI.run(
                ["run", "many.yml", "--out", "out", "--memory-limit", "256KiB", "--threads", threads], cwd: dir.path)
            #expect(failed.status != 0)
            #expect(failed.stderr.contains("cities.json:\(line):"), "\(failed.stderr)")
            #expect(!failed.stderr.contains("max-record-bytes"), "\(failed.stderr)")
        }
        // Without the syntax error, the record too large is the error.
        try dir.write("cities.json", text.replacingOccurrences(of: "}\n{", with: "},\n{"))
        let large = try CLI.run(["run", "many.yml", "--out", "out", "--memory-limit", "256KiB"], cwd: dir.path)
        #expect(large.status != 0)
        #expect(large.stderr.contains("max-record-bytes"), "\(large.stderr)")
    }

    @Test func aRunKilledAfterSpillingLeavesThePreviousDatasetAndTheNextRunCleansUp() throws {
        let dir = try Self.prepared()
        let first = try CLI.run(["run", "many.yml", "--out", "out", "--quiet"], cwd: dir.path)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/many")
        try dir.write("cities.json", ThreadsTests.dump().replacingOccurrences(of: "City 1", with: "Town 1"))
        let killed = try CLI.run(
            ["run", "many.yml", "--out", "out", "--memory-limit", "64KiB"], cwd: dir.path,
            environment: ["SEEDFORGE_FAULT": "before-swap"])
        #expect(killed.status != 0)
        #expect(try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/many") == before)
        // Spill files are unlinked when made: at most an empty folder is left behind.
        let spill = dir.path + "/out/.many.spill"
        #expect((try? FileManager.default.contentsOfDirectory(atPath: spill)) ?? [] == [])
        let next = try CLI.run(["run", "many.yml", "--out", "out", "--quiet"], cwd: dir.path)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(!FileManager.default.fileExists(atPath: spill))
        #expect(try dir.read("out/many/cities.json").contains("Town 1"))
    }

    /// Records past the limit that cannot go to disk (here a file-size limit, as a full
    /// disk would) stop the run with an I/O error that says where and what to do, not an
    /// internal error; the previous dataset stays.
    @Test func aSpillThatCannotBeWrittenIsAClearIOErrorAndKeepsThePreviousDataset() throws {
        let dir = try Self.prepared()
        let first = try CLI.run(["run", "many.yml", "--out", "out", "--quiet"], cwd: dir.path)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/many")
        try dir.write("cities.json", ThreadsTests.dump().replacingOccurrences(of: "City 1", with: "Town 1"))
        // Files may grow to 16 KiB; the signal for going past it is ignored, so the write
        // fails with EFBIG, as one on a full disk fails with ENOSPC.
        let failed = try CLI.runProgram(
            "/bin/sh",
            [
                "-c",
                "trap '' XFSZ; ulimit -f 32; exec \"$0\" run many.yml --out out --memory-limit 64KiB",
                CLI.binary,
            ], cwd: dir.path)
        #expect(failed.status == 3, "\(failed.stderr)")
        #expect(
            failed.stderr.contains("error: cannot write records past the memory limit to ")
                && failed.stderr.contains("/out/.many.spill (")
                && failed.stderr.contains("; free space there or raise --memory-limit"), "\(failed.stderr)")
        #expect(!failed.stderr.contains("internal error"), "\(failed.stderr)")
        #expect(try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/many") == before)
    }

    @Test func badSizesAreClearErrors() throws {
        let dir = try Self.prepared()
        let flag = try CLI.run(["run", "many.yml", "--memory-limit", "lots"], cwd: dir.path)
        #expect(flag.status == 2)
        #expect(flag.stderr.contains("--memory-limit must be a size such as 2GiB"), "\(flag.stderr)")
        try dir.write("many.yml", ThreadsTests.pipeline + "\nlimits: {max-memory: 1.5GB}\n")
        let key = try CLI.run(["lint", "many.yml"], cwd: dir.path)
        #expect(key.status != 0)
        #expect(key.stderr.contains("'max-memory' in 'limits' must be a size"), "\(key.stderr)")
    }
}
