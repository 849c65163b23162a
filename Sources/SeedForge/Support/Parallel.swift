import Dispatch

/// Splits work over the machine's cores in contiguous chunks and returns the chunks'
/// results in order, so a parallel step gives exactly the result of a sequential one
/// whatever the thread count.
public enum Parallel {
    /// Runs `body` on up to `threads` contiguous ranges covering `0..<count` (no range
    /// smaller than `minimumChunk`), concurrently, and returns their results in order.
    public static func chunks<T>(_ count: Int, threads: Int, minimumChunk: Int = 2048, _ body: (Range<Int>) -> T) -> [T] {
        let pieces = max(1, min(threads, count / max(1, minimumChunk)))
        if pieces == 1 { return [body(0..<count)] }
        let ranges = (0..<pieces).map { piece in (count * piece / pieces)..<(count * (piece + 1) / pieces) }
        return run(ranges.count) { body(ranges[$0]) }
    }

    /// Runs `body(0) ... body(n - 1)` concurrently and returns the results in order.
    public static func run<T>(_ n: Int, _ body: (Int) -> T) -> [T] {
        if n == 1 { return [body(0)] }
        var results = [T?](repeating: nil, count: n)
        // The caller guarantees `body` is safe to run concurrently (it only reads shared
        // state); each call writes its own slot.
        nonisolated(unsafe) let body = body
        results.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: n) { index in
                slots[index] = body(index)
            }
        }
        return results.map { $0! }
    }

    /// Maps every element, in parallel chunks, keeping order.
    public static func map<T, U>(_ items: [T], threads: Int, minimumChunk: Int = 2048, _ transform: (T) -> U) -> [U] {
        chunks(items.count, threads: threads, minimumChunk: minimumChunk) { range in items[range].map(transform) }.flatMap { $0 }
    }
}
