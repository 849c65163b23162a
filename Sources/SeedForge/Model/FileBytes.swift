import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The bytes of an input file, for as long as records point into them. A plain file is
/// memory-mapped, not copied: after its records are read, `releaseResidentPages` lets the
/// kernel drop its pages, and the few a later message needs (a line and column, a value
/// as written) are read back from the file on demand, so a run does not hold every input
/// in memory. Decompressed text (gzip inputs) and test data live in allocated memory.
///
/// An input file must not be truncated while a run reads it (a mapped page past the new
/// end cannot be read back); cron jobs that replace inputs should write a new file and
/// rename it, as most tools do.
public final class FileBytes: @unchecked Sendable {
    public let buffer: UnsafeBufferPointer<UInt8>
    private let owner: Owner
    /// Size and modification time of the file read, as they were when it was opened.
    public internal(set) var stamp: FileStamp?

    private enum Owner {
        case mapped, allocated, malloc
    }

    /// A copy of `bytes` in memory of its own.
    public init(copying bytes: [UInt8]) {
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
        _ = UnsafeMutableBufferPointer(start: memory, count: bytes.count).initialize(from: bytes)
        buffer = UnsafeBufferPointer(start: memory, count: bytes.count)
        owner = .allocated
    }

    /// Takes over `count` bytes at `memory`, allocated with `malloc` (freed with `free`).
    init(adoptingMalloc memory: UnsafeMutablePointer<UInt8>, count: Int) {
        buffer = UnsafeBufferPointer(start: memory, count: count)
        owner = .malloc
    }

    /// Takes over `count` bytes mapped at `address` (unmapped with `munmap`).
    init(mapping address: UnsafeMutableRawPointer, count: Int) {
        buffer = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: count)
        owner = .mapped
    }

    deinit {
        switch owner {
        case .mapped: munmap(UnsafeMutableRawPointer(mutating: buffer.baseAddress!), buffer.count)
        case .malloc: free(UnsafeMutableRawPointer(mutating: buffer.baseAddress))
        case .allocated: UnsafeMutablePointer(mutating: buffer.baseAddress)?.deallocate()
        }
    }

    /// Lets the kernel drop the mapped pages now (they are read back when touched); no
    /// effect on bytes in allocated memory.
    public func releaseResidentPages() {
        releaseResidentPages(0..<buffer.count)
    }

    /// How far a pass over a large file goes before it lets the pages behind it go. With
    /// 32 MiB, a 21 MB input (240k cities) came back into memory whole for the line scan at
    /// the end of ingest: the run's highest point after ingest fell from 95.6 to 84.4 MB
    /// with 4 MiB (a `madvise` every 4 MiB costs nothing measurable).
    static let releaseStep = 4 << 20

    /// A pass over the file from `start` (a hash, a syntax check, a line count) that lets
    /// the pages it has passed go every `releaseStep` bytes, so it never brings a large
    /// file into memory whole.
    struct ReleasingPass {
        let file: FileBytes
        private var released: Int
        /// Bytes passed between two releases.
        let step: Int

        init(_ file: FileBytes, from start: Int = 0) {
            self.init(file, from: start, step: FileBytes.releaseStep)
        }

        init(_ file: FileBytes, from start: Int, step: Int) {
            self.file = file
            released = start
            self.step = step
        }

        /// The pass has reached `position` (a reader's position may stand one past the end,
        /// after a last line without a line break: only the file's bytes are released).
        mutating func reached(_ position: Int) {
            let position = min(position, file.count)
            guard position - released > step else { return }
            file.releaseResidentPages(released..<position)
            released = position
        }

        /// The pass ended at `position`: the rest of what it read goes too.
        mutating func end(at position: Int) {
            let position = min(position, file.count)
            guard position > released else { return }
            file.releaseResidentPages(released..<position)
            released = position
        }
    }

    /// Lets the kernel drop the mapped pages that lie wholly inside `range`.
    public func releaseResidentPages(_ range: Range<Int>) {
        guard owner == .mapped, !range.isEmpty else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (range.lowerBound + page - 1) / page * page
        let end = range.upperBound == buffer.count ? range.upperBound : range.upperBound / page * page
        guard end > start else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: buffer.baseAddress! + start), end - start, MADV_DONTNEED)
    }

    /// Reads of a few bytes at scattered places (a finding's line and column, a value as
    /// written) since the pages were last let go.
    private let scatteredReads = Atomic<Int>(0)
    /// How many scattered reads go by before the pages are let go again.
    static let scatteredReadsBetweenReleases = 256

    /// Notes a read of a few bytes somewhere in the file. The kernel maps the 64 KiB around
    /// each page read from a mapping (fault-around, whatever `madvise` says), so a few
    /// thousand findings spread over a file brought all of it back into memory (at 1M
    /// cities 90 MiB, the peak of the validate steps): every
    /// `scatteredReadsBetweenReleases` reads the pages go again. A page let go while another
    /// thread reads it is read back from the file: only the time of a page fault is at stake.
    public func noteScatteredRead() {
        guard owner == .mapped else { return }
        let reads = scatteredReads.wrappingAdd(1, ordering: .relaxed).newValue
        if reads % Self.scatteredReadsBetweenReleases == 0 { releaseResidentPages() }
    }

    public var count: Int { buffer.count }
    public subscript(index: Int) -> UInt8 { buffer[index] }
    public subscript(range: Range<Int>) -> Slice<UnsafeBufferPointer<UInt8>> { buffer[range] }

    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(buffer)
    }

    /// A copy as an array (HTML pages, which libxml2 and the encoding check take as arrays).
    public var array: [UInt8] { Array(buffer) }
}

/// A regular file's identity and times: size, inode, modification time and status-change
/// time (nanoseconds since 1970). Tools can set a modification time back (`touch -r`,
/// `cp -p`), but not the status-change time, which any write or such setting moves: equal
/// stamps mean the file was not written since, without reading it.
public struct FileStamp: Equatable, Sendable {
    public let bytes: Int
    public let inode: UInt64
    public let modified: Int64
    public let changed: Int64

    init(bytes: Int, inode: UInt64, modified: Int64, changed: Int64) {
        self.bytes = bytes
        self.inode = inode
        self.modified = modified
        self.changed = changed
    }

    init(_ info: stat) {
        bytes = Int(info.st_size)
        inode = UInt64(info.st_ino)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    /// As the manifest's `run.inputs` records it.
    public var text: String { "\(bytes):\(inode):\(modified):\(changed)" }

    /// The stamp of the file at `path` now; nil when it is missing or not a regular file.
    public static func of(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileStamp(info)
    }
}
