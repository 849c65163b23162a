import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Per thread, how many loop bodies of `Threads.run` it is inside (0: none), as a pointer's
/// bit pattern (a thread-specific value; Swift has no thread-local variables).
private let loopDepthKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

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
    /// Joinable loops with indexes not yet taken (`run(_:joinable:_:)`).
    private let open = Mutex<[JoinableLoop]>([])

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
    ///
    /// `joinable`: besides, a thread of an outermost loop (one called outside any loop's
    /// body) that has taken that loop's last index joins this loop, in its own place, while
    /// it has indexes left. Helpers join a loop only as it starts, so a loop started while
    /// every place was busy ran alone to its end: the shipped cities' 23,256 pages, started
    /// beside the comparison, on one thread while the other, done with every other output,
    /// waited for it. Only for loops whose `body` never waits for another thread (it may
    /// run on a thread that is, lower on its stack, in the middle of anything).
    public func run<T>(_ n: Int, joinable: Bool = false, _ body: (Int) -> T) -> [T] {
        // A body run here on the calling thread is inside a loop too (`nested`): a loop it
        // begins is not outermost, so its threads never join other loops from inside it.
        if n <= 1 { return n == 1 ? [Self.nested { body(0) }] : [] }
        let workers = min(n, count)
        if workers == 1 { return Self.nested { (0..<n).map(body) } }
        var results = [T?](repeating: nil, count: n)
        // The caller guarantees `body` is safe to run concurrently: indexes read shared
        // state, or one index alone mutates a piece of it that no other index touches
        // (`RenderAhead`'s writing task, `IngestSink.merge` taking the chunks beside the
        // hash); each index is taken once, on any thread, and writes its own slot.
        withoutActuallyEscaping(body) { body in
            results.withUnsafeMutableBufferPointer { slots in
                nonisolated(unsafe) let slots = slots
                nonisolated(unsafe) let body = body
                let loop = JoinableLoop(count: n) { slots[$0] = body($0) }
                if joinable { open.withLock { $0.append(loop) } }
                let outermost = Self.depth == 0
                if free.load(ordering: .relaxed) == 0 {
                    loop.work()
                } else {
                    DispatchQueue.concurrentPerform(iterations: workers) { worker in
                        // Worker 0 is the calling thread's share, already counted as busy; every
                        // other worker needs a free place, or leaves the work to those running.
                        if worker > 0 {
                            guard take(1) == 1 else { return }
                            started()
                        }
                        loop.work()
                        if outermost { helpJoinableLoops() }
                        if worker > 0 {
                            ended()
                            give(1)
                        }
                    }
                }
                if outermost { helpJoinableLoops() }
                if joinable { close(loop) }
                // No reference to `body` may outlive this call.
                loop.step = nil
            }
        }
        return results.map { $0! }
    }

    /// How many loop bodies the calling thread is inside.
    /// Runs `body` one loop level deeper (see `depth`).
    static func nested<R>(_ body: () -> R) -> R {
        let outer = depth
        depth = outer + 1
        defer { depth = outer }
        return body()
    }

    static var depth: Int {
        get { Int(bitPattern: pthread_getspecific(loopDepthKey)) }
        set { pthread_setspecific(loopDepthKey, UnsafeRawPointer(bitPattern: newValue)) }
    }

    /// Joins, one after another, the joinable loops that still have indexes to take (the
    /// calling thread holds a place of the budget and has nothing else to do).
    private func helpJoinableLoops() {
        while let loop = open.withLock({ loops -> JoinableLoop? in
            guard let loop = loops.first(where: { $0.hasWork }) else { return nil }
            loop.joiners += 1
            return loop
        }) {
            loop.work()
            let last = open.withLock { _ -> Bool in
                loop.joiners -= 1
                return loop.joiners == 0 && loop.closed
            }
            if last { loop.left.signal() }
        }
    }

    /// Takes `loop` out of the joinable loops (its indexes are all taken) and waits for the
    /// threads still working in it.
    private func close(_ loop: JoinableLoop) {
        let waiting = open.withLock { loops -> Bool in
            loops.removeAll { $0 === loop }
            loop.closed = true
            return loop.joiners > 0
        }
        if waiting { loop.left.wait() }
    }
}

/// The indexes of one `Threads.run`, taken one at a time by whichever thread works in it.
/// `joiners` and `closed` are read and written only under the lock of `Threads.open`.
private final class JoinableLoop: @unchecked Sendable {
    let count: Int
    private let next = Atomic<Int>(0)
    /// Runs one index; set to nil once the loop is over (it refers to the caller's `body`).
    var step: ((Int) -> Void)?
    var joiners = 0
    var closed = false
    let left = DispatchSemaphore(value: 0)

    init(count: Int, step: @escaping (Int) -> Void) {
        self.count = count
        self.step = step
    }

    var hasWork: Bool { next.load(ordering: .relaxed) < count }

    /// Takes indexes until none is left, each run inside a loop body (`Threads.depth`).
    func work() {
        guard let step else { return }
        Threads.nested {
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                if index >= count { break }
                step(index)
            }
        }
    }
}
