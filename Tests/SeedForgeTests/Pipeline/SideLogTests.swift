import Foundation
import Testing

@testable import SeedForge

@Suite("Side logs past the memory limit")
struct SideLogTests {
    /// A log of numbers whose entries are each `16` bytes held, rendered as their decimal line.
    static func log(budget: Int, folder: String) -> SideLog<Int> {
        SideLog(
            budget: budget, size: { _ in 16 }, render: { entry, writer in writer.append("\(entry)\n") },
            newFile: { try SpillFile(folder: folder) })
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
}
