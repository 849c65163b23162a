/// The encoded records of one segment of a partial: bytes a shard just made, or a window
/// of a `partial.bin` that was read. A partial read is memory-mapped, not copied, so merging
/// and finishing partials holds what the steps hold, not every partial whole: before,
/// reading one took about 2.5 times its size (the file, an array of it, and each segment
/// copied out of that), whatever `--memory-limit` said. Whoever has decoded or written a
/// mapped segment lets its pages go (`release`); touched again, they are read back from
/// the page cache or the disk.
struct SegmentBytes {
    private enum Storage {
        case owned([UInt8])
        case mapped(FileBytes, Range<Int>)
    }

    private let storage: Storage

    init(_ bytes: [UInt8]) { storage = .owned(bytes) }

    /// `range` of the mapped partial file `file`.
    init(_ file: FileBytes, _ range: Range<Int>) { storage = .mapped(file, range) }

    var count: Int {
        switch storage {
        case .owned(let bytes): return bytes.count
        case .mapped(_, let range): return range.count
        }
    }

    func withBuffer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch storage {
        case .owned(let bytes): return try bytes.withUnsafeBufferPointer(body)
        case .mapped(let file, let range): return try body(UnsafeBufferPointer(rebasing: file.buffer[range]))
        }
    }

    /// Lets the pages of a mapped segment go (no effect on bytes in memory).
    func release() {
        if case .mapped(let file, let range) = storage { file.releaseResidentPages(range) }
    }
}

extension RecordCodec {
    /// Every record of a partial's segment (see `decodeAll`).
    func decodeAll(_ segment: SegmentBytes, count: Int, width: Int, threads: Threads? = nil) -> [Record] {
        segment.withBuffer { decodeAll($0, count: count, width: width, threads: threads) }
    }
}
