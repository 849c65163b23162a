import CSeedForgeSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Linux's `O_NOATIME` (the same on x86-64 and arm64), which Swift's Glibc module leaves out
/// (glibc declares it only for `_GNU_SOURCE`).
private let noAccessTime: Int32 = 0o1000000

/// Writes a dataset folder atomically: every file goes into a temporary folder beside the
/// target, which is then swapped into place in one step (Linux `renameat2` exchange), so
/// readers see either the complete previous dataset or the complete new one. A failure or
/// a kill before the swap leaves the previous folder untouched; leftovers of killed runs
/// are removed by the next run.
public struct OutputDirectory {
    public let target: URL
    public let staging: URL
    /// The run's thread budget, which removing a large folder draws on.
    let threads: Threads
    /// Per folder output (its `file:`), the files created empty in it before the outputs
    /// (`FilesAhead`).
    var reserved: [String: Set<String>] = [:]

    public init(target: URL, threads: Threads) throws {
        self.target = target
        self.threads = threads
        let parent = target.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw IOFailure("cannot create output folder \(parent.path): \(error.localizedDescription)")
        }
        Self.removeLeftovers(of: target, threads: threads)
        staging = parent.appendingPathComponent(".\(target.lastPathComponent).tmp-\(getpid())")
        Self.remove(staging.path, threads: threads)
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw IOFailure("cannot create staging folder \(staging.path): \(error.localizedDescription)")
        }
    }

    /// Writes one file into the staging folder (flushed to disk, with every other file,
    /// by `commit`).
    public func write(_ bytes: [UInt8], to name: String) throws {
        let path = stagedPath(name)
        let fd = try Self.create(path, name: name)
        defer { close(fd) }
        try bytes.withUnsafeBufferPointer { try Self.writeAll($0, to: fd, path: path) }
    }

    /// Whether `path` is a regular file (not a link) holding exactly `bytes`.
    static func holds(_ path: String, exactly bytes: [UInt8]) -> Bool {
        holds(in: AT_FDCWD, path, exactly: bytes)
    }

    /// Whether `path`, relative to the open folder `folder` (or `AT_FDCWD`), is a regular
    /// file (not a link) holding exactly `bytes`.
    static func holds(in folder: Int32, _ path: String, exactly bytes: [UInt8]) -> Bool {
        // Without touching its access time: a file linked into the dataset before has a newer
        // change time than access time, so under `relatime` each rerun's read would write its
        // inode again (`touch_atime`, 2% of the CPU samples of a shipped rerun). Only the
        // file's owner may ask that; anyone else reads it as before.
        // A file system that refuses the flag otherwise (some FUSE servers) is read as before
        // too; a missing file or a link needs no second try.
        var fd = openat(folder, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | noAccessTime)
        if fd < 0, errno != ENOENT, errno != ELOOP { fd = openat(folder, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == bytes.count else {
            return false
        }
        // One byte more than expected is asked for, so a file that grew since `fstat` reads
        // long; a read that returns exactly the expected count ends the loop without the
        // second `read` that would only confirm the end of the file (a regular file reads
        // short only there: 23,256 system calls fewer on a rerun of the shipped cities).
        var contents = [UInt8](repeating: 0, count: bytes.count + 1)
        var filled = 0
        while filled < bytes.count {
            let count = contents.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            filled += count
        }
        guard filled == bytes.count else { return false }
        // One memcmp (`sameBytes`): the generic element-by-element comparison was a byte loop.
        return contents.withUnsafeBufferPointer { old in
            bytes.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: old[..<$0.count]).sameBytes(as: $0) }
        }
    }

    /// The folder `name` of the new dataset, made and opened for writing many files into
    /// it, each linked from the same folder of the dataset being replaced when unchanged.
    func folder(_ name: String) throws -> StagedFolder {
        try StagedFolder(staged: stagedPath(name), previous: target.path + "/" + name, reserved: reserved[name] ?? [])
    }

    /// Removes the files created ahead in the folder output `name` that it did not write
    /// (`written`: the dataset paths it wrote, `name/file`): the count ahead was estimated
    /// from the records before rejects and duplicates.
    func removeUnwritten(_ name: String, written: [(file: String, bytes: Int, sha256: String)]) throws {
        guard let reserved = reserved[name] else { return }
        var unwritten = reserved
        for file in written where file.file.hasPrefix(name + "/") {
            unwritten.remove(String(file.file.dropFirst(name.count + 1)))
        }
        for file in unwritten.sorted() {
            guard unlink(stagedPath(name + "/" + file)) == 0 else {
                throw IOFailure("cannot remove \(stagedPath(name + "/" + file)): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Where the file `name` of the new dataset is written (to be read back).
    func stagedPath(_ name: String) -> String { staging.path + "/" + name }

    /// Writes a new file of the staging folder in pieces through `body` (an output
    /// streamed as it is rendered): its size and SHA-256, taken as it was written.
    public func stream(_ name: String, _ body: (StagedFile) throws -> Void) throws -> (bytes: Int, sha256: String) {
        let path = stagedPath(name)
        let staged = StagedFile(fd: try Self.create(path, name: name), path: path)
        try body(staged)
        return try staged.finish()
    }

    /// Creates the staging file `path` (dataset file `name`); when its sub-folder does not
    /// exist yet (`prefix-index/keys.tsv`), makes the folder and tries once more.
    static func create(_ path: String, name: String) throws -> Int32 {
        func open() -> Int32 { Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        var fd = open()
        if fd < 0, errno == ENOENT, name.contains("/") {
            try? FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            fd = open()
        }
        guard fd >= 0 else { throw IOFailure("cannot create \(path): \(String(cString: strerror(errno)))") }
        return fd
    }

    static func writeAll(_ buffer: UnsafeBufferPointer<UInt8>, to fd: Int32, path: String) throws {
        var written = 0
        while written < buffer.count {
            let result = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                throw IOFailure("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += result
        }
    }

    /// Puts the staged folder in place of the target and removes the previous contents,
    /// or with `keep` > 0 moves them into the dataset's history (`DatasetHistory`), which
    /// then holds at most `keep` datasets. Every staged file is flushed to disk first (one
    /// `syncfs`), so after a crash the target is either the old dataset or the complete new one.
    public func commit(keep: Int = 0) throws {
        let history = DatasetHistory(root: target.deletingLastPathComponent(), name: target.lastPathComponent)
        /// What happens to the replaced dataset, now at `path`.
        func retire(_ path: String) {
            if keep > 0 {
                history.keep(path, keep: keep, threads: threads)
            } else {
                Self.remove(path, threads: threads)
            }
        }
        guard seedforge_sync_filesystem(staging.path) == 0 else {
            throw IOFailure("cannot flush \(staging.path) to disk: \(String(cString: strerror(errno)))")
        }
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: target.path) {
            let aside = target.deletingLastPathComponent().appendingPathComponent(
                ".\(target.lastPathComponent).old-\(getpid())")
            retire(try Self.swap(staging, into: target, aside: aside))
        } else {
            guard rename(staging.path, target.path) == 0 else {
                throw IOFailure("cannot move new dataset into \(target.path): \(String(cString: strerror(errno)))")
            }
        }
        let parent = open(target.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if parent >= 0 {
            fsync(parent)
            close(parent)
        }
    }

    /// Where a new dataset over its budgets is kept for inspection: `OUT/.NAME.rejected`.
    public var rejected: URL {
        target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).rejected")
    }

    /// Keeps the staged dataset aside as `rejected` instead of swapping it in (replacing
    /// what an earlier failure kept there); the target is not touched.
    public func setAside() throws {
        Self.remove(rejected.path, threads: threads)
        guard rename(staging.path, rejected.path) == 0 else {
            throw IOFailure("cannot keep the new dataset as \(rejected.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Removes what an earlier run over budget kept aside, once a dataset is released.
    public func removeRejected() {
        if FileManager.default.fileExists(atPath: rejected.path) { Self.remove(rejected.path, threads: threads) }
    }

    /// Removes the staging folder after a failed run.
    public func discard() {
        Self.remove(staging.path, threads: threads)
    }

    /// Puts the folder `new` in place of the folder `target` in one step (`renameat2`
    /// exchange); on a file system without exchange, moves `target` to `aside` and then
    /// `new` into place (putting `target` back if that fails). Returns the path that now
    /// holds the replaced folder (`new`'s after an exchange, else `aside`).
    static func swap(_ new: URL, into target: URL, aside: URL) throws -> String {
        if seedforge_exchange_paths(new.path, target.path) == 0 { return new.path }
        guard rename(target.path, aside.path) == 0 else {
            throw IOFailure("cannot move \(target.path) aside: \(String(cString: strerror(errno)))")
        }
        guard rename(new.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = rename(aside.path, target.path)
            throw IOFailure("cannot move \(new.path) into \(target.path): \(reason)")
        }
        return aside.path
    }

    /// Removes a folder tree, unlinking a large folder's files from up to four threads of
    /// the budget (the kernel frees each file's blocks outside the folder's lock). Best
    /// effort: what cannot be removed now is a leftover the next run removes.
    static func remove(_ path: String, threads: Threads) {
        _ = threads.lend(upTo: 4) { seedforge_remove_tree(path, Int32($0)) }
    }

    /// Removes `.NAME.tmp-PID` and `.NAME.old-PID` folders left by runs that no longer exist.
    static func removeLeftovers(of target: URL, threads: Threads) {
        let parent = target.deletingLastPathComponent()
        let prefixes = [".\(target.lastPathComponent).tmp-", ".\(target.lastPathComponent).old-"]
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for entry in entries {
            guard let prefix = prefixes.first(where: { entry.hasPrefix($0) }),
                let pid = Int32(entry.dropFirst(prefix.count))
            else { continue }
            if pid != getpid(), kill(pid, 0) == 0 { continue }
            remove(parent.appendingPathComponent(entry).path, threads: threads)
        }
    }
}

/// A file of the staging folder written in pieces (an output streamed as it is rendered):
/// buffered, counted and hashed as it goes.
public final class StagedFile {
    private var fd: Int32
    let path: String
    private var buffer: [UInt8] = []
    private let digest = SHA256.Stream()
    private var count = 0
    static let bufferSize = 1 << 20

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit { if fd >= 0 { close(fd) } }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBufferPointer { try write($0) }
    }

    public func write(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        if buffer.count + bytes.count > Self.bufferSize { try flush() }
        if bytes.count >= Self.directSize {
            // Hashed and written from where it lies, after what is buffered before it.
            if !buffer.isEmpty { try flush() }
            try put(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    /// Pieces at least this long are not copied into the buffer: a batch of rendered records
    /// (about 0.6 MB of NDJSON, 0.3 MB of snapshot lines at the CSV bench's 4,096 records
    /// a piece) is one `write` already, and the copy was one more pass over every byte of
    /// the file (229 MB for the CSV bench's outputs).
    static let directSize = 64 << 10

    private func put(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        digest.update(bytes)
        try OutputDirectory.writeAll(bytes, to: fd, path: path)
        count += bytes.count
        if count - writtenBack >= Self.writebackStep { startWriteback() }
    }

    private func flush() throws {
        try buffer.withUnsafeBufferPointer { try put($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Bytes the disk was asked to start writing (`writebackStep` at a time).
    private var writtenBack = 0
    /// The run ends with one flush of the whole file system (`commit`), which waits for
    /// every byte still in memory to reach the disk: 0.13-0.17 s for the 229 MB of the CSV
    /// benchmark's outputs, all of it after the last byte was written. Asking the disk to
    /// start on a large file's bytes as they are written (without waiting) lets that
    /// writing overlap the rendering of the rest.
    static let writebackStep = 8 << 20

    private func startWriteback() {
        seedforge_start_writeback(fd, Int64(writtenBack), Int64(count - writtenBack))
        writtenBack = count
    }

    /// Writes what is buffered and closes the file: its size and SHA-256.
    func finish() throws -> (bytes: Int, sha256: String) {
        try flush()
        if writtenBack > 0 { startWriteback() }
        close(fd)
        fd = -1
        return (count, digest.finish())
    }

    /// Writes what is buffered, then the SHA-256 of everything written as 64 hexadecimal
    /// digits (a seal that shows a file cut short or damaged: `partial.bin`), and closes.
    func finishSealed() throws {
        try flush()
        let seal = Array(digest.finish().utf8)
        try seal.withUnsafeBufferPointer { try OutputDirectory.writeAll($0, to: fd, path: path) }
        close(fd)
        fd = -1
    }
}
