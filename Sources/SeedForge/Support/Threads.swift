import Dispatch
import Synchronization

/// A run's thread budget (`--threads N`): every parallel loop of the run draws its helper
/// threads from it, so at most `count` threads work at once, however loops nest (outputs
/// written side by side, each rendering its records in chunks).
///
/// A loop always runs on the thread that calls it, which already counts against the
/// budget; up to `pieces - 1` helper threads join it, each taking a free place in the
/// budget as it starts and giving it back as it stops. A nested loop that finds no place
/// free starts on its own thread, and a thread that runs out of work later joins it: a
/// helper whose loop has no piece left, and the caller of a loop whose last pieces other
/// threads are running, take pieces of the loops that began after theirs (nested in them,
/// or in a task beside them) before they give their place back or wait. How work is split
/// never depends on how many threads were free, so results are the same for any budget.
///
/// An integer literal is a budget of its own (`threads: 3` in tests and tools).
public final class Threads: Sendable, ExpressibleByIntegerLiteral {
    /// The budget: how many threads may work at once.
    public let count: Int
    /// Helper threads free to take (the calling thread is never counted here).
    private let free: Atomic<Int>
    private let busy = Atomic<Int>(1)
    private let highest = Atomic<Int>(1)
    /// The loops running, which a thread out of work may join, in the order they began.
    private let open = Mutex<[Loop]>([])
    private let begun = Atomic<Int>(0)

    /// A loop's pieces, as any thread with a place in the budget takes them.
    private final class Loop: @unchecked Sendable {
        let count: Int
        /// When it began, among the budget's loops.
        let serial: Int
        private let next = Atomic<Int>(0)
        private let done = Atomic<Int>(0)
        private let finished = DispatchSemaphore(value: 0)
        /// Runs a piece and keeps its result: set before the loop is open, cleared once
        /// every piece is done (no piece is handed out after that).
        nonisolated(unsafe) var work: ((Int) -> Void)?

        init(count: Int, serial: Int) {
            self.count = count
            self.serial = serial
        }

        var hasWork: Bool { next.load(ordering: .relaxed) < count }
        var complete: Bool { done.load(ordering: .acquiring) == count }

        /// Runs the next piece; false when every piece has been taken.
        func runOne() -> Bool {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < count else { return false }
            work!(index)
            if done.add(1, ordering: .acquiringAndReleasing).newValue == count { finished.signal() }
            return true
        }

        /// Returns once every piece is done, on whichever thread.
        func waitUntilComplete() {
            if !complete { finished.wait() }
        }
    }

    public init(_ count: Int) {
        self.count = max(1, count)
        free = Atomic(self.count - 1)
    }

    public convenience init(integerLiteral count: Int) { self.init(count) }

    /// The most threads seen working at once so far (at least 1: the caller).
    public var peak: Int { highest.load(ordering: .relaxed) }

    /// Takes up to `wanted` free helper threads; returns how many it got.
    private func take(_ wanted: Int) -> Int {
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

    private func give(_ count: Int) {
        free.add(count, ordering: .acquiringAndReleasing)
    }

    private func started() {
        let now = busy.add(1, ordering: .relaxed).newValue
        highest.max(now, ordering: .relaxed)
    }

    private func ended() {
        busy.subtract(1, ordering: .relaxed)
    }

    /// Lends up to `wanted` threads in all (the calling thread and the helpers free now) to
    /// code that starts its own threads (the C folder remover): `body` gets how many it
    /// may use, at least 1, and they count as busy until it returns.
    public func lend<T>(upTo wanted: Int, _ body: (Int) -> T) -> T {
        let helpers = take(min(wanted, count) - 1)
        for _ in 0..<helpers { started() }
        defer {
            for _ in 0..<helpers { ended() }
            give(helpers)
        }
        return body(helpers + 1)
    }

    /// Runs pieces of the loops that began after loop number `serial`, one at a time,
    /// until none has a piece left or `stop` says so.
    private func help(after serial: Int, until stop: () -> Bool) {
        while !stop() {
            guard let loop = open.withLock({ $0.first { $0.serial > serial && $0.hasWork } }) else { return }
            _ = loop.runOne()
        }
    }

    /// Runs `body(0) ... body(n - 1)` on the calling thread and the helper threads free
    /// while it runs, and returns the results in order, as soon as every piece is done. A
    /// helper takes its place in the budget only when it starts working (and gives it back
    /// when it stops), so a place is never held by a thread that has not started. Threads
    /// that run out of work later may join (see the type's notes); a helper is not tied to
    /// the loop it was started for, so the loop's caller never waits for a helper busy
    /// with another loop's piece.
    public func run<T>(_ n: Int, _ body: (Int) -> T) -> [T] {
        if n <= 1 { return n == 1 ? [body(0)] : [] }
        let workers = min(n, count)
        if workers == 1 { return (0..<n).map(body) }
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
                let loop = Loop(count: n, serial: begun.add(1, ordering: .relaxed).newValue)
                loop.work = { slots[$0] = body($0) }
                open.withLock { $0.append(loop) }
                func addHelper() {
                    DispatchQueue.global().async { [self] in
                        guard take(1) == 1 else { return }
                        started()
                        while loop.runOne() {}
                        help(after: loop.serial, until: { false })
                        ended()
                        give(1)
                    }
                }
                for _ in 0..<min(workers - 1, free.load(ordering: .relaxed)) { addHelper() }
                // A place freed while this thread works (a helper of another loop that found
                // nothing to join) is taken by a new helper.
                while loop.runOne() {
                    if loop.hasWork, free.load(ordering: .relaxed) > 0 { addHelper() }
                }
                help(after: loop.serial, until: { loop.complete })
                loop.waitUntilComplete()
                open.withLock { $0.removeAll { $0 === loop } }
                loop.work = nil
            }
        }
        return results.map { $0! }
    }
}
