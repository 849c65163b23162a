import Foundation
import Testing

/// `run --keep N` keeps released datasets; `seedforge rollback` puts them back, under the
/// lock runs take. The real CLI on a copy of the honey-shops pipeline and fixtures.
@Suite("End to end: keep and rollback", .serialized)
struct RollbackEndToEndTests {
    /// Releases the dataset with the House of Honey named `name`, keeping `keep` releases;
    /// returns the released folder's files.
    static func release(_ dir: TempDir, name: String, keep: Int? = 2) throws -> [String: Data] {
        let shops = try dir.read("Fixtures/honey-shops/shops.json")
        let renamed = shops.replacingOccurrences(
            of: #""id": "house-of-honey",\n    "name": "[^"]*""#,
            with: "\"id\": \"house-of-honey\",\n    \"name\": \"\(name)\"",
            options: .regularExpression)
        #expect(renamed != shops || shops.contains("\"\(name)\""))
        try dir.write("Fixtures/honey-shops/shops.json", renamed)
        let result = try HoneyShopsEndToEndTests.run(dir, extra: keep.map { ["--keep", String($0)] } ?? [])
        #expect(result.status == 0, "\(result.stderr)")
        return try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/honey-shops")
    }

    static func history(_ dir: TempDir) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path + "/out/.history/honey-shops")) ?? []).sorted()
    }

    @Test func keptReleasesComeBackByteForByteOneAtATime() throws {
        let dir = try HoneyShopsEndToEndTests.workspace()
        // Without --keep, nothing is kept.
        _ = try Self.release(dir, name: "The House of Honey", keep: nil)
        _ = try Self.release(dir, name: "Honey House 1", keep: nil)
        #expect(Self.history(dir).isEmpty)
        let second = try Self.release(dir, name: "Honey House 2")
        let third = try Self.release(dir, name: "Honey House 3")
        _ = try Self.release(dir, name: "Honey House 4")
        // Three releases replaced with --keep 2: the two newest are kept, named by release time.
        let kept = Self.history(dir)
        #expect(kept.count == 2 && kept.allSatisfy { $0.hasPrefix("20") && $0.hasSuffix("Z") }, "\(kept)")

        let back = try CLI.run(["rollback", "out/honey-shops"], cwd: dir.path)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(
            back.stdout
                == "out/honey-shops: rolled back to the dataset released \(kept[1]); the replaced one is in out/.honey-shops.rolled-back; 1 older kept\n"
        )
        #expect(try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/honey-shops") == third)
        #expect(
            try String(contentsOfFile: dir.path + "/out/.honey-shops.rolled-back/shops.json", encoding: .utf8)
                .contains("Honey House 4"))
        // Once more: one release further back.
        #expect(try CLI.run(["rollback", "out/honey-shops"], cwd: dir.path).status == 0)
        #expect(try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/honey-shops") == second)
        let none = try CLI.run(["rollback", "out/honey-shops"], cwd: dir.path)
        #expect(none.status == 2)
        #expect(
            none.stderr
                == "error: no earlier dataset of honey-shops is kept in out/.history/honey-shops (runs keep them with --keep N)\n"
        )
        #expect(try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/honey-shops") == second)
        // The next run compares with the dataset rolled back to, and rebuilds from the inputs.
        let rerun = try HoneyShopsEndToEndTests.run(dir)
        #expect(rerun.stdout.contains("honey-shops: shops +0 \u{2212}0 ~1, reviews +0 \u{2212}0 ~0 since the last run"))
    }

    @Test func rollbackTakesTheRunLockAndRefusesWhatIsNotADataset() throws {
        let dir = try HoneyShopsEndToEndTests.workspace()
        _ = try Self.release(dir, name: "Honey House 1")
        _ = try Self.release(dir, name: "Honey House 2")
        let current = try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/honey-shops")
        // A run holds the lock: the rollback waits, then gives up without touching anything.
        let fd = open(dir.path + "/out/.honey-shops.lock", O_RDWR)
        #expect(fd >= 0 && flock(fd, LOCK_EX) == 0)
        let busy = try CLI.run(["rollback", "out/honey-shops", "--lock-timeout", "0.2"], cwd: dir.path)
        flock(fd, LOCK_UN)
        close(fd)
        #expect(busy.status == 3)
        #expect(busy.stderr.contains("still holds"), "\(busy.stderr)")
        #expect(try HoneyShopsEndToEndTests.snapshot(dir.path + "/out/honey-shops") == current)
        #expect(Self.history(dir).count == 1)

        let missing = try CLI.run(["rollback", "out/nothing"], cwd: dir.path)
        #expect(missing.status == 2 && missing.stderr == "error: out/nothing is not a dataset folder\n")
    }
}
