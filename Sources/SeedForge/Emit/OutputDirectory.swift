import CSeedForgeSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes a dataset folder atomically: every file goes into a temporary folder beside the
/// target, which is then swapped into place in one step (Linux `renameat2` exchange), so
/// readers see either the complete previous dataset or the complete new one. A failure or
/// a kill before the swap leaves the previous folder untouched; leftovers of killed runs
/// are removed by the next run.
public struct OutputDirectory {
    public let target: URL
    public let staging: URL

    public init(target: URL) throws {
        self.target = target
        let parent = target.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw IOFailure("cannot create output folder \(parent.path): \(error.localizedDescription)")
        }
        Self.removeLeftovers(of: target)
        staging = parent.appendingPathComponent(".\(target.lastPathComponent).tmp-\(getpid())")
        try? FileManager.default.removeItem(at: staging)
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw IOFailure("cannot create staging folder \(staging.path): \(error.localizedDescription)")
        }
    }

    /// Writes one file into the staging folder (flushed to disk, with every other file,
    /// by `commit`).
    public func write(_ bytes: [UInt8], to name: String) throws {
        let url = staging.appendingPathComponent(name)
        let folder = url.deletingLastPathComponent()
        if folder.path != staging.path {
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IOFailure("cannot create \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var written = 0
        try bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let result = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw IOFailure("cannot write \(url.path): \(String(cString: strerror(errno)))")
                }
                written += result
            }
        }
    }

    /// Puts the staged folder in place of the target and removes the previous contents.
    /// Every staged file is flushed to disk first (one `syncfs`), so after a crash the
    /// target is either the old dataset or the complete new one.
    public func commit() throws {
        guard seedforge_sync_filesystem(staging.path) == 0 else {
            throw IOFailure("cannot flush \(staging.path) to disk: \(String(cString: strerror(errno)))")
        }
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: target.path) {
            if seedforge_exchange_paths(staging.path, target.path) != 0 {
                // File systems without exchange: move the old folder aside, then rename.
                let aside = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).old-\(getpid())")
                guard rename(target.path, aside.path) == 0 else {
                    throw IOFailure("cannot move \(target.path) aside: \(String(cString: strerror(errno)))")
                }
                guard rename(staging.path, target.path) == 0 else {
                    let reason = String(cString: strerror(errno))
                    _ = rename(aside.path, target.path)
                    throw IOFailure("cannot move new dataset into \(target.path): \(reason)")
                }
                try? fileManager.removeItem(at: aside)
                return
            }
            try? fileManager.removeItem(at: staging)
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

    /// Removes the staging folder after a failed run.
    public func discard() {
        try? FileManager.default.removeItem(at: staging)
    }

    /// Removes `.NAME.tmp-PID` and `.NAME.old-PID` folders left by runs that no longer exist.
    static func removeLeftovers(of target: URL) {
        let parent = target.deletingLastPathComponent()
        let prefixes = [".\(target.lastPathComponent).tmp-", ".\(target.lastPathComponent).old-"]
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for entry in entries {
            guard let prefix = prefixes.first(where: { entry.hasPrefix($0) }), let pid = Int32(entry.dropFirst(prefix.count)) else { continue }
            if pid != getpid(), kill(pid, 0) == 0 { continue }
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(entry))
        }
    }
}
