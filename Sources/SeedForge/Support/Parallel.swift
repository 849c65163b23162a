/// Splits work into contiguous chunks run within a thread budget (`Threads`) and returns
/// the chunks' results in order, so a parallel step gives exactly the result of a
/// sequential one whatever the thread count.
public enum Parallel {
    /// Runs `body` on contiguous ranges covering `0..<count` (no range smaller than
    /// `minimumChunk`), concurrently, and returns their results in order. With more than
    /// one thread there are up to `piecesPerThread` ranges a thread, each thread taking the
    /// next range not yet taken: with one range a thread, the thread whose range held the
    /// slower records (names that need the full Unicode collation, say) ran on alone while
    /// the others waited.
    public static func chunks<T>(
        _ count: Int, threads: Threads, minimumChunk: Int = 2048, _ body: (Range<Int>) -> T
    ) -> [T] {
        let most = threads.count > 1 ? threads.count * piecesPerThread : 1
        let pieces = max(1, min(most, count / max(1, minimumChunk)))
        if pieces == 1 { return [body(0..<count)] }
        let ranges = (0..<pieces).map { piece in (count * piece / pieces)..<(count * (piece + 1) / pieces) }
        return threads.run(ranges.count) { body(ranges[$0]) }
    }

    /// Ranges a thread at most (`chunks`).
    static let piecesPerThread = 4

    /// Maps every element, in parallel chunks, keeping order.
    public static func map<T, U>(_ items: [T], threads: Threads, minimumChunk: Int = 2048, _ transform: (T) -> U) -> [U]
    {
        chunks(items.count, threads: threads, minimumChunk: minimumChunk) { range in items[range].map(transform) }
            .flatMap { $0 }
    }
}
