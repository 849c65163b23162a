import Foundation
import Synchronization
import Testing

@testable import SeedForge

/// Counts pieces of work running at the same moment, independently of `Threads`' own count.
private final class Overlap: Sendable {
    private let active = Atomic<Int>(0)
    private let highest = Atomic<Int>(0)

    var peak: Int { highest.load(ordering: .relaxed) }

    /// Runs `body` as one piece of leaf work (never nested on one thread).
    func work<T>(_ body: () -> T) -> T {
        let now = active.add(1, ordering: .relaxed).newValue
        highest.max(now, ordering: .relaxed)
        defer { active.subtract(1, ordering: .relaxed) }
        return body()
    }
}

/// `--threads N` is one budget for the whole run: nested parallel loops share it.
@Suite("Support: thread budget")
struct ThreadBudgetTests {
    /// A little work that takes long enough for pieces to overlap when they can.
    static func spin(_ seed: Int) -> Int {
        var x = seed
        for _ in 0..<5_000 { x = x &* 6_364_136_223_846_793_005 &+ 1 }
        return x
    }

    @Test(arguments: [1, 2, 3])
    func nestedLoopsNeverWorkOnMoreThreadsThanTheBudget(budget: Int) {
        let threads = Threads(budget)
        let overlap = Overlap()
        let results = threads.run(4) { outer in
            let own = overlap.work { Self.spin(outer) }
            let inner = Parallel.chunks(600, threads: threads, minimumChunk: 100) { range in
                overlap.work { range.map { Self.spin($0 % 3) }.count }
            }
            return (own, inner.reduce(0, +))
        }
        #expect(overlap.peak <= budget)
        #expect(threads.peak <= budget)
        // Every piece ran exactly once, in order, whatever ran where.
        #expect(results.map(\.0) == (0..<4).map(Self.spin))
        #expect(results.allSatisfy { $0.1 == 600 })
    }

    /// A loop is cut into a few contiguous ranges a thread (each thread takes the next),
    /// covering every index once and in order, none under the minimum; one with one thread.
    @Test(arguments: [1, 2, 3])
    func chunksCoverTheIndexesInOrderWithAFewRangesAThread(budget: Int) {
        let threads = Threads(budget)
        let ranges = Parallel.chunks(100_000, threads: threads, minimumChunk: 1_000) { $0 }
        #expect(ranges.count == (budget == 1 ? 1 : budget * Parallel.piecesPerThread))
        #expect(ranges.first?.lowerBound == 0)
        #expect(ranges.last?.upperBound == 100_000)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(ranges.allSatisfy { $0.count >= 1_000 })
        // Too few indexes for a range a thread at the minimum: fewer ranges.
        let few = Parallel.chunks(2_500, threads: threads, minimumChunk: 1_000) { $0 }
        #expect(few.count == (budget == 1 ? 1 : 2))
        #expect(few.map(\.count).reduce(0, +) == 2_500)
    }

    @Test func aBudgetOfOneRunsEverythingOnTheCallingThread() {
        let threads = Threads(1)
        let caller = pthread_self()
        let ran = threads.run(8) { index in
            Parallel.chunks(10_000, threads: threads, minimumChunk: 100) { _ in
                pthread_equal(pthread_self(), caller) != 0
            }.allSatisfy { $0 }
        }
        #expect(ran.allSatisfy { $0 })
        #expect(threads.peak == 1)
        #expect(threads.lend(upTo: 4) { $0 } == 1)
    }

    @Test func lentThreadsCountAsBusyAndComeBack() {
        let threads = Threads(3)
        #expect(threads.lend(upTo: 4) { $0 } == 3)
        #expect(threads.peak == 3)
        // Given back: a loop afterwards may use them again.
        #expect(threads.lend(upTo: 2) { $0 } == 2)
        #expect(threads.run(5) { $0 * 2 } == [0, 2, 4, 6, 8])
    }

    /// A joinable loop that started while every place of the budget was busy (the pages
    /// output beside the comparison) gets the thread that finishes the other work: its
    /// pieces wait (10 s at most in all) until a thread other than the loop's own ran one.
    @Test func aThreadDoneWithItsWorkJoinsAJoinableLoopStartedWhileEveryPlaceWasBusy() {
        let threads = Threads(2)
        let innerStarted = DispatchSemaphore(value: 0)
        let foreign = Atomic<Bool>(false)
        let ran = threads.run(2) { task -> [Int] in
            if task == 0 {
                // Holds its place until the joinable loop has started, then is done.
                _ = innerStarted.wait(timeout: .now() + 10)
                return []
            }
            let owner = pthread_self()
            let deadline = Date().addingTimeInterval(10)
            return threads.run(40, joinable: true) { piece -> Int in
                if piece == 0 { innerStarted.signal() }
                if pthread_equal(pthread_self(), owner) == 0 { foreign.store(true, ordering: .relaxed) }
                while piece > 0, !foreign.load(ordering: .relaxed), Date() < deadline { usleep(1_000) }
                return piece * 3
            }
        }
        let joined = foreign.load(ordering: .relaxed)
        #expect(joined)
        #expect(ran[1] == (0..<40).map { $0 * 3 })
        #expect(threads.peak <= 2)
    }

    /// A body is inside a loop however the loop runs (on every thread, on the calling thread
    /// alone for a budget of one, or a loop of one index), so a loop it begins is never an
    /// outermost one whose threads join other loops from inside that body.
    @Test(arguments: [1, 2])
    func everyLoopBodyRunsOneLevelDeeper(budget: Int) {
        let threads = Threads(budget)
        #expect(Threads.depth == 0)
        #expect(threads.run(1) { _ in Threads.depth } == [1])
        #expect(threads.run(4) { _ in Threads.depth } == [1, 1, 1, 1])
        #expect(threads.run(2) { _ in threads.run(1) { _ in Threads.depth }[0] } == [2, 2])
        #expect(Threads.depth == 0)
    }
}
