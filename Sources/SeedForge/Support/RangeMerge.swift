/// Merges runs that are each sorted: `ranges` of indexes (each run's indexes in its order),
/// calling `body` with every index, least first by `less`, through a binary heap of the
/// runs' next indexes. A tie between two runs' indexes goes to whichever `less` prefers,
/// so `less` must decide every tie (by input order or by file) for the result to be one
/// order. Used where the shards sorted their runs and the finish merges them
/// (`ShardSort`, `ShardDedupeSort`).
enum RangeMerge {
    static func forEach(_ ranges: [Range<Int>], less: (Int, Int) -> Bool, _ body: (Int) -> Void) {
        var next = ranges.map(\.lowerBound)
        var heap = ranges.indices.filter { !ranges[$0].isEmpty }
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let (left, right) = (2 * parent + 1, 2 * parent + 2)
                var least = parent
                if left < heap.count, less(next[heap[left]], next[heap[least]]) { least = left }
                if right < heap.count, less(next[heap[right]], next[heap[least]]) { least = right }
                if least == parent { return }
                heap.swapAt(parent, least)
                parent = least
            }
        }
        for start in stride(from: heap.count / 2, through: 0, by: -1) { siftDown(start) }
        while let run = heap.first {
            body(next[run])
            next[run] += 1
            if next[run] == ranges[run].upperBound {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
    }
}
