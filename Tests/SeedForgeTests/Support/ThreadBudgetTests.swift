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

    /// A nested loop that begins while every place is taken starts alone, and the thread
    /// that finishes the task beside it joins it (before, it ran alone to its end: the
    /// outputs' loop of a run rendered its last output on one core while the other idled).
    @Test func aThreadFreedLaterJoinsANestedLoopThatStartedAlone() {
        let threads = Threads(2)
        let nestedStarted = Atomic<Bool>(false)
        let joined = Atomic<Bool>(false)
        let results = threads.run(2) { task -> Set<UInt> in
            let deadline = ContinuousClock.now + .seconds(10)
            if task == 0 {
                // Busy until the nested loop has begun, so it finds no place free.
                while !nestedStarted.load(ordering: .acquiring), ContinuousClock.now < deadline {}
                return []
            }
            let caller = pthread_self()
            let ran = Parallel.chunks(40, threads: threads, minimumChunk: 1) { range -> UInt in
                nestedStarted.store(true, ordering: .releasing)
                if pthread_equal(pthread_self(), caller) == 0 { joined.store(true, ordering: .releasing) }
                // The caller's first piece waits for another thread to take a piece.
                if range.lowerBound == 0 {
                    while !joined.load(ordering: .acquiring), ContinuousClock.now < deadline {}
                }
                return UInt(pthread_self())
            }
            return Set(ran)
        }
        let didJoin = joined.load(ordering: .acquiring)
        #expect(didJoin, "no other thread joined the nested loop")
        #expect(results[1].count == 2)
        #expect(threads.peak <= 2)
    }

    /// The same when the thread runs out of work before the nested loop begins: a caller
    /// waiting for its loop's last piece wakes when a loop opens and joins it (the reviewer's
    /// case: every batch of a rendering is a loop of its own, begun while the other thread
    /// slept in its wait).
    @Test func aWaitingCallerJoinsALoopThatOpensLater() {
        let threads = Threads(2)
        let secondStarted = Atomic<Bool>(false)
        let joined = Atomic<Bool>(false)
        _ = threads.run(2) { task -> Int in
            let deadline = ContinuousClock.now + .seconds(10)
            if task == 0 {
                while !secondStarted.load(ordering: .acquiring), ContinuousClock.now < deadline {}
                return 0
            }
            secondStarted.store(true, ordering: .releasing)
            // Long enough for the other thread to finish its task and wait.
            usleep(100_000)
            let caller = pthread_self()
            return Parallel.chunks(40, threads: threads, minimumChunk: 1) { range -> Int in
                if pthread_equal(pthread_self(), caller) == 0 { joined.store(true, ordering: .releasing) }
                if range.lowerBound == 0 {
                    while !joined.load(ordering: .acquiring), ContinuousClock.now < deadline {}
                }
                return range.count
            }.reduce(0, +)
        }
        let didJoin = joined.load(ordering: .acquiring)
        #expect(didJoin, "the waiting thread did not join the loop that opened after it began to wait")
        #expect(threads.peak <= 2)
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
}
