/// Splits work into contiguous chunks run within a thread budget (`Threads`) and returns
/// the chunks' results in order, so a parallel step gives exactly the result of a
/// sequential one whatever the thread count.
public enum Parallel {
    /// Runs `body` on up to `threads.count` contiguous ranges covering `0..<count` (no
    /// range smaller than `minimumChunk`), concurrently, and returns their results in order.
    public static func chunks<T>(
        _ count: Int, threads: Threads, minimumChunk: Int = 2048, _ body: (Range<Int>) -> T
    ) -> [T] {
        let pieces = max(1, min(threads.count, count / max(1, minimumChunk)))
        if pieces == 1 { return [body(0..<count)] }
        let ranges = (0..<pieces).map { piece in (count * piece / pieces)..<(count * (piece + 1) / pieces) }
        return threads.run(ranges.count) { body(ranges[$0]) }
    }

    /// Maps every element, in parallel chunks, keeping order.
    public static func map<T, U>(_ items: [T], threads: Threads, minimumChunk: Int = 2048, _ transform: (T) -> U) -> [U]
    {
        chunks(items.count, threads: threads, minimumChunk: minimumChunk) { range in items[range].map(transform) }
            .flatMap { $0 }
    }
}
