import Dispatch
import Synchronization

/// A run's thread budget (`--threads N`): every parallel loop of the run draws its helper
/// threads from it, so at most `count` threads work at once, however loops nest (outputs
/// written side by side, each rendering its records in chunks).
///
/// A loop always runs on the thread that calls it, which already counts against the
/// budget; up to `pieces - 1` helper threads join it, each taking a free place in the
/// budget as it starts and giving it back as it stops. A nested loop that finds no place
/// free runs its pieces one after another on its own thread. How work is split never
/// depends on how many threads were free, so results are the same for any budget.
///
/// An integer literal is a budget of its own (`threads: 3` in tests and tools).
public final class Threads: Sendable, ExpressibleByIntegerLiteral {
    /// The budget: how many threads may work at once.
    public let count: Int
    /// Helper threads free to take (the calling thread is never counted here).
    private let free: Atomic<Int>
    private let busy = Atomic<Int>(1)
    private let highest = Atomic<Int>(1)

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

    /// Runs `body(0) ... body(n - 1)` on the calling thread and the helper threads free
    /// while it runs, and returns the results in order. A helper takes its place in the
    /// budget only when it starts working (and gives it back when it stops), so a place is
    /// never held by a thread that has not started.
    public func run<T>(_ n: Int, _ body: (Int) -> T) -> [T] {
        if n <= 1 { return n == 1 ? [body(0)] : [] }
        let workers = min(n, count)
        if workers == 1 || free.load(ordering: .relaxed) == 0 { return (0..<n).map(body) }
        var results = [T?](repeating: nil, count: n)
        let next = Atomic<Int>(0)
        // The caller guarantees `body` is safe to run concurrently: indexes read shared
        // state, or one index alone mutates a piece of it that no other index touches
        // (`RenderAhead`'s writing task, `IngestSink.merge` taking the chunks beside the
        // hash); each index is taken once, on any thread, and writes its own slot.
        nonisolated(unsafe) let body = body
        results.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                // Worker 0 is the calling thread's share, already counted as busy; every
                // other worker needs a free place, or leaves the work to those running.
                if worker > 0 {
                    guard take(1) == 1 else { return }
                    started()
                }
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    if index >= n { break }
                    slots[index] = body(index)
                }
                if worker > 0 {
                    ended()
                    give(1)
                }
            }
        }
        return results.map { $0! }
    }
}
