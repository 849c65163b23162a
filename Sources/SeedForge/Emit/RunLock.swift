import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive lock per dataset (`DIR/.NAME.lock`, flock), held for a whole run, so two
/// overlapping runs of one pipeline take turns instead of mixing their outputs. The
/// kernel releases it when the process ends, even on a kill.
public final class RunLock {
    let fd: Int32
    public let path: String

    /// Waits up to `timeout` seconds; `onWait` is called once if the lock is busy.
    public init(path: String, timeout: Double, onWait: () -> Void) throws {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IOFailure("cannot open lock file \(path): \(String(cString: strerror(errno)))") }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
        onWait()
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            usleep(50_000)
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
        }
        close(fd)
        throw IOFailure("another run of this pipeline still holds \(path) after \(Int(timeout)) s (see --lock-timeout)")
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
