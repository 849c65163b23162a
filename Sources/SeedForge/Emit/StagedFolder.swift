import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A folder of the new dataset that a folder output writes many files into (the 23,256
/// pages of the shipped cities), opened once beside the same folder of the dataset being
/// replaced. Each file is created, compared and linked relative to the two folders' open
/// descriptors (`openat`, `linkat`): the kernel resolves one name per file instead of the
/// whole path, and without a previous folder (a first run) no file asks about it. By path,
/// a first run of the shipped cities made 46,689 `openat` calls, half of them failing to
/// find the previous page.
final class StagedFolder {
    /// The folder's path in the staging folder (for messages).
    let path: String
    private let staged: Int32
    /// The same folder in the dataset being replaced; -1 when there is none.
    private let previous: Int32
    /// Names created empty ahead of the output (`FilesAhead`): opened, not created.
    private let reserved: Set<String>

    /// Makes the folder `staged` (and its parents) and opens it, and opens `previous` if it
    /// is a folder. `reserved` names files already in it, empty.
    init(staged: String, previous: String, reserved: Set<String> = []) throws {
        path = staged
        self.reserved = reserved
        do {
            try FileManager.default.createDirectory(atPath: staged, withIntermediateDirectories: true)
        } catch {
            throw IOFailure("cannot create \(staged): \(error.localizedDescription)")
        }
        let fd = open(staged, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw IOFailure("cannot open \(staged): \(String(cString: strerror(errno)))") }
        self.staged = fd
        self.previous = open(previous, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    deinit {
        close(staged)
        if previous >= 0 { close(previous) }
    }

    /// Writes the new file `name` (a name, not a path) with `bytes`, unless the previous
    /// folder holds a file of that name with exactly these bytes: that file is then
    /// hard-linked into the new dataset instead. A nightly rerun of a dataset of thousands
    /// of page files, most of them unchanged, then neither writes them nor, after the swap,
    /// frees their disk blocks, which is what creating and removing small files costs.
    /// Nothing ever writes into a linked file, so the previous dataset stays exactly as it
    /// was until the swap; on a file system without hard links the file is written.
    /// A new file is created with `O_EXCL`: the folder is new, so a name already there
    /// would be two files of one name, unless it is one of the empty files made for it.
    func writeReusingPrevious(_ bytes: [UInt8], to name: String) throws {
        if previous >= 0, OutputDirectory.holds(in: previous, name, exactly: bytes),
            linkat(previous, name, staged, name, 0) == 0
        {
            return
        }
        let fd =
            reserved.contains(name)
            ? openat(staged, name, O_WRONLY | O_CLOEXEC)
            : openat(staged, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IOFailure("cannot create \(path)/\(name): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try bytes.withUnsafeBufferPointer { try OutputDirectory.writeAll($0, to: fd, path: "\(path)/\(name)") }
    }
}
