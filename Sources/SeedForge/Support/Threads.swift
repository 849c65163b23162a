import Foundation
import Synchronization

/// A run's thread budget (`--threads N`): every parallel loop of the run draws its helper
/// threads from it, so at most `count` threads work at once, however loops nest (outputs
/// written side by side, each rendering its records in chunks).
///
/// A loop always runs on the thread that calls it, which already counts against the
/// budget. The budget keeps `count - 1` helper threads of its own (started with its first
/// loop, stopped with it): a helper takes a free place in the budget when there is a piece
/// of any loop to run and gives it back when there is none, so a loop that begins while
/// every place is taken starts alone and is joined as soon as a place frees. The caller of
/// a loop whose last pieces other threads are running takes pieces of the loops begun
/// after its own (nested in it, or beside it; never one that encloses it, so a thread never
/// takes up a task that waits for the one it put aside), and sleeps when there are none.
/// How work is split never depends on how many threads were free, so results are the same
/// for any budget.
///
/// Before (2026-11-27), a loop ran on the helpers free when it began (a nested
/// `concurrentPerform`): a loop that found none ran alone to its end, and on this 2-core
/// machine a `concurrentPerform` nested in another used one thread even when the other was
/// idle, so the shipped cities' 23,256 pages were created by one thread.
///
/// An integer literal is a budget of its own (`threads: 3` in tests and tools).
public final class Threads: Sendable, ExpressibleByIntegerLiteral {
    /// The budget: how many threads may work at once.
    public let count: Int
    private let pool: Pool

    public init(_ count: Int) {
        self.count = max(1, count)
        pool = Pool(helpers: self.count - 1)
    }

    public convenience init(integerLiteral count: Int) { self.init(count) }

    deinit { pool.close() }

    /// The most threads seen working at once so far (at least 1: the caller).
    public var peak: Int { pool.highest.load(ordering: .relaxed) }

    /// Lends up to `wanted` threads in all (the calling thread and the helpers free now) to
    /// code that starts its own threads (the C folder remover): `body` gets how many it
    /// may use, at least 1, and they count as busy until it returns.
    public func lend<T>(upTo wanted: Int, _ body: (Int) -> T) -> T {
        let helpers = pool.take(min(wanted, count) - 1)
        for _ in 0..<helpers { pool.started() }
        defer {
            for _ in 0..<helpers { pool.ended() }
            pool.give(helpers)
        }
        return body(helpers + 1)
    }

    /// Runs `body(0) ... body(n - 1)` on the calling thread and the budget's helpers, and
    /// returns the results in order as soon as every piece is done.
    public func run<T>(_ n: Int, _ body: (Int) -> T) -> [T] {
        if n <= 1 { return n == 1 ? [body(0)] : [] }
        if count == 1 { return (0..<n).map(body) }
        var results = [T?](repeating: nil, count: n)
        // The caller guarantees `body` is safe to run concurrently: indexes read shared
        // state, or one index alone mutates a piece of it that no other index touches
        // (`RenderAhead`'s writing task, `IngestSink.merge` taking the chunks beside the
        // hash); each index is taken once, on any thread, and writes its own slot. Every
        // piece is done before `run` returns, and none is handed out after that.
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let body = body
            results.withUnsafeMutableBufferPointer { slots in
                nonisolated(unsafe) let slots = slots
                let loop = pool.open(count: n) { slots[$0] = body($0) }
                while loop.runOne() {}
                pool.finish(loop)
            }
        }
        return results.map { $0! }
    }

    /// A loop's pieces, as any thread with a place in the budget takes them.
    final class Loop: @unchecked Sendable {
        let count: Int
        /// When it began, among the budget's loops.
        let serial: Int
        private let next = Atomic<Int>(0)
        private let done = Atomic<Int>(0)
        private unowned let pool: Pool
        /// Runs a piece and keeps its result: set before the loop is open, cleared once
        /// every piece is done (no piece is handed out after that).
        nonisolated(unsafe) var work: ((Int) -> Void)?

        init(count: Int, serial: Int, pool: Pool, work: @escaping (Int) -> Void) {
            self.count = count
            self.serial = serial
            self.pool = pool
            self.work = work
        }

        var hasWork: Bool { next.load(ordering: .relaxed) < count }
        var complete: Bool { done.load(ordering: .acquiring) == count }

        /// Runs the next piece; false when every piece has been taken.
        func runOne() -> Bool {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < count else { return false }
            work!(index)
            if done.add(1, ordering: .acquiringAndReleasing).newValue == count { pool.signal() }
            return true
        }
    }

    /// The budget's places, its open loops and its helper threads.
    final class Pool: @unchecked Sendable {
        let helpers: Int
        /// Places free for helpers (the calling thread is never counted here).
        private let free: Atomic<Int>
        private let busy = Atomic<Int>(1)
        let highest = Atomic<Int>(1)
        /// Guards `loops`, `started` and `closing`; helpers sleep on it, and so do callers
        /// whose last pieces run elsewhere. Broadcast after every change they wait for, under
        /// the lock, so that a thread that checked and found nothing cannot miss it.
        private let wake = NSCondition()
        /// The loops running, in the order they began.
        private var loops: [Loop] = []
        private var begun = 0
        private var threadsStarted = false
        private var closing = false

        init(helpers: Int) {
            self.helpers = helpers
            free = Atomic(helpers)
        }

        /// Takes up to `wanted` free places; returns how many it got.
        func take(_ wanted: Int) -> Int {
            guard wanted > 0 else { return 0 }
            var current = free.load(ordering: .relaxed)
            while current > 0 {
                let granted = min(current, wanted)
                let (exchanged, seen) = free.compareExchange(
                    expected: current, desired: current - granted, ordering: .acquiringAndReleasing)
                if exchanged { return granted }
                current = seen
            }
            return 0
        }

        func give(_ count: Int) {
            free.add(count, ordering: .acquiringAndReleasing)
            signal()
        }

        func started() {
            let now = busy.add(1, ordering: .relaxed).newValue
            highest.max(now, ordering: .relaxed)
        }

        func ended() {
            busy.subtract(1, ordering: .relaxed)
        }

        func signal() {
            wake.lock()
            wake.broadcast()
            wake.unlock()
        }

        /// Opens a loop of `count` pieces for every thread to take (starting the helper
        /// threads with the budget's first loop).
        func open(count: Int, work: @escaping (Int) -> Void) -> Loop {
            wake.lock()
            defer {
                wake.broadcast()
                wake.unlock()
            }
            begun += 1
            let loop = Loop(count: count, serial: begun, pool: self, work: work)
            loops.append(loop)
            if !threadsStarted {
                threadsStarted = true
                for _ in 0..<helpers {
                    let thread = Thread { [self] in helperLoop() }
                    thread.name = "seedforge helper"
                    thread.start()
                }
            }
            return loop
        }

        /// The first loop (begun after loop number `serial`) with a piece left. Under `wake`.
        private func withWork(after serial: Int) -> Loop? {
            loops.first { $0.serial > serial && $0.hasWork }
        }

        /// Until `loop`'s pieces are all done: runs pieces of the loops begun after it, and
        /// sleeps while there are none; then closes it.
        func finish(_ loop: Loop) {
            wake.lock()
            while !loop.complete {
                if let other = withWork(after: loop.serial) {
                    wake.unlock()
                    _ = other.runOne()
                    wake.lock()
                } else {
                    wake.wait()
                }
            }
            loops.removeAll { $0 === loop }
            wake.unlock()
            loop.work = nil
        }

        /// A helper thread: sleeps until a loop has a piece left and a place is free, runs
        /// pieces of the loops (the oldest first) while any has one, then gives the place
        /// back; ends when the budget is closed.
        private func helperLoop() {
            wake.lock()
            while true {
                if closing { break }
                guard withWork(after: 0) != nil, take(1) == 1 else {
                    wake.wait()
                    continue
                }
                started()
                while let loop = withWork(after: 0) {
                    wake.unlock()
                    _ = loop.runOne()
                    wake.lock()
                }
                ended()
                free.add(1, ordering: .acquiringAndReleasing)
            }
            wake.unlock()
        }

        /// Stops the helper threads once they are idle (the budget is no longer used).
        func close() {
            wake.lock()
            closing = true
            wake.broadcast()
            wake.unlock()
        }
    }
}
