import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The encoded records of one segment of a partial: bytes a shard just made, or a place in
/// a `partial.bin` that was read. Merging and finishing partials holds what the steps hold,
/// not every partial whole: before, reading one took about 2.5 times its size (the file, an
/// array of it, and each segment copied out of that), whatever `--memory-limit` said. A
/// segment in a file is read (`pread`) when it is decoded or copied, at most 65,536 records.
struct SegmentBytes {
    private enum Storage {
        case owned([UInt8])
        case inFile(PartialFile, Range<Int>)
    }

    private let storage: Storage

    init(_ bytes: [UInt8]) { storage = .owned(bytes) }

    /// `range` of the partial file `file`.
    init(_ file: PartialFile, _ range: Range<Int>) { storage = .inFile(file, range) }

    var count: Int {
        switch storage {
        case .owned(let bytes): return bytes.count
        case .inFile(_, let range): return range.count
        }
    }

    /// The bytes; a `ShardError` when the file they are in changed since its seal was checked.
    func withBuffer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        switch storage {
        case .owned(let bytes): return try bytes.withUnsafeBufferPointer(body)
        case .inFile(let file, let range): return try file.read(range).withUnsafeBufferPointer(body)
        }
    }
}

/// A `partial.bin` whose seal was checked, read again a segment at a time. It is not
/// mapped: a partial is a file people copy between machines, and one cut short under a
/// mapping would kill the run (SIGBUS) instead of failing it. Each read checks that the
/// file is still the one checked (its stamp: size, inode, modification and status-change
/// times, which any write moves) before and after the bytes are read, so a partial
/// replaced or rewritten during a merge is an error, never records decoded from other bytes.
final class PartialFile: Sendable {
    let path: String
    let stamp: FileStamp

    init(path: String, stamp: FileStamp) {
        self.path = path
        self.stamp = stamp
    }

    func read(_ range: Range<Int>) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw changed("it cannot be opened again: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try check(fd)
        var bytes = [UInt8](repeating: 0, count: range.count)
        var done = 0
        while done < range.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw IOFailure("cannot read \(path): \(String(cString: strerror(errno)))")
            }
            guard count > 0 else { throw changed("it is shorter than when it was checked") }
            done += count
        }
        try check(fd)
        return bytes
    }

    private func check(_ fd: Int32) throws {
        var info = stat()
        guard fstat(fd, &info) == 0, FileStamp(info) == stamp else { throw changed("it was written or replaced") }
    }

    private func changed(_ why: String) -> ShardError {
        ShardError(
            "\(path) changed while this merge read it (\(why)); leave partials alone until the merge ends, and run it again"
        )
    }
}

extension RecordCodec {
    /// Every record of a partial's segment (see `decodeAll`).
    func decodeAll(_ segment: SegmentBytes, count: Int, width: Int, threads: Threads? = nil) throws -> [Record] {
        try segment.withBuffer { decodeAll($0, count: count, width: width, threads: threads) }
    }
}
