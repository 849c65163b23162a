import Foundation
import Testing

@testable import SeedForge

@Suite("Side logs past the memory limit")
struct SideLogTests {
    /// A log of numbers whose entries are each `16` bytes held, rendered as their decimal line.
    static func log(budget: Int, folder: String, threads: Int = 1) -> SideLog<Int> {
        SideLog(
            budget: budget, size: { _ in 16 }, render: { entry, writer in writer.append("\(entry)\n") },
            newFile: { try SpillFile(folder: folder) }, threads: Threads(threads))
    }

    static func written(_ log: SideLog<Int>) throws -> String {
        var bytes: [UInt8] = []
        try log.write { bytes += $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Past its budget, a log appended to by a step past the memory limit holds no entry
    /// however many come (they go to disk as lines), and writes every line in order.
    @Test func entriesPastTheBudgetAreHeldAsLinesOnDiskInOrder() throws {
        let dir = try TempDir()
        let log = Self.log(budget: 1_000, folder: dir.path)
        var most = 0
        for entry in 0..<200_000 {
            log.append(entry, pastLimit: true)
            most = max(most, log.entries.count)
        }
        // 62 entries of 16 bytes fit in 1,000; the 63rd renders them all.
        #expect(most == 1_000 / 16)
        #expect(log.renders)
        #expect(log.entries.isEmpty)
        #expect(log.count == 200_000)
        #expect(try Self.written(log) == (0..<200_000).map { "\($0)\n" }.joined())
    }

    /// Appended by steps within the limit (or under the budget), entries are held as
    /// values, as callers that read them (pipeline tests, `state.duplicates`) expect.
    @Test func entriesWithinTheLimitOrTheBudgetAreHeld() throws {
        let dir = try TempDir()
        let within = Self.log(budget: 1_000, folder: dir.path)
        for entry in 0..<500 { within.append(entry) }
        #expect(!within.renders)
        #expect(within.entries == Array(0..<500))
        let under = Self.log(budget: 1_000, folder: dir.path)
        for entry in 0..<62 { under.append(entry, pastLimit: true) }
        #expect(!under.renders)
        #expect(under.entries.count == 62)
        // Held ones first, then those rendered after the budget was passed.
        for entry in 0..<500 { within.append(500 + entry, pastLimit: true) }
        #expect(try Self.written(within) == (0..<1_000).map { "\($0)\n" }.joined())
    }

    /// Rendered on several threads a batch at a time (past the budget, and for the held
    /// entries when written), the lines come out in the entries' order, each once, with
    /// a batch left unrendered at the end; what is held past the budget stays bounded.
    @Test(arguments: [1, 3])
    func linesRenderedOnEveryCoreKeepTheirOrder(threads: Int) throws {
        let dir = try TempDir()
        let past = Self.log(budget: 100_000, folder: dir.path, threads: threads)
        var most = 0
        // Not a multiple of the batch: the last entries are still unrendered when written.
        for entry in 0..<(3 * SideOutputs.batch + 1_234) {
            past.append(entry, pastLimit: true)
            most = max(most, past.entries.count)
        }
        #expect(past.renders)
        #expect(most == 100_000 / 16)
        #expect(try Self.written(past) == (0..<(3 * SideOutputs.batch + 1_234)).map { "\($0)\n" }.joined())
        let held = Self.log(budget: .max, folder: dir.path, threads: threads)
        for entry in 0..<(2 * SideOutputs.batch + 77) { held.append(entry, pastLimit: true) }
        #expect(!held.renders)
        #expect(try Self.written(held) == (0..<(2 * SideOutputs.batch + 77)).map { "\($0)\n" }.joined())
    }

    /// A side output's lines (rejects, warnings) rendered a batch at a time on every core
    /// are handed over in order, each once, as on one thread.
    @Test func sideOutputLinesRenderedOnEveryCoreComeInOrder() throws {
        func lines(threads: Int) throws -> String {
            var bytes: [UInt8] = []
            try SideOutputs.lines(
                count: 2 * SideOutputs.batch + 999, threads: Threads(threads),
                render: { index, writer in writer.append("\(index)\n") }, to: { bytes += $0 })
            return String(decoding: bytes, as: UTF8.self)
        }
        let expected = (0..<(2 * SideOutputs.batch + 999)).map { "\($0)\n" }.joined()
        #expect(try lines(threads: 1) == expected)
        #expect(try lines(threads: 3) == expected)
        #expect(try lines(threads: 2) == expected)
    }
}
