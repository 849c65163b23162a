import CSeedForgeSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Released datasets kept after they were replaced (`run --keep N`), newest last, in
/// `OUT/.history/NAME/RELEASED`, where RELEASED is when that dataset's run started
/// (`2026-11-23T031502.114Z`, from its manifest), so names sort in release order.
/// `seedforge rollback OUT/NAME` swaps the newest one back in, under the dataset's lock.
///
/// A kept dataset is moved, not copied: files it shares with newer datasets (page files
/// linked because their bytes were equal) stay shared, and nothing ever writes into them.
public struct DatasetHistory {
    /// The folder holding the datasets (`OUT`) and the dataset's name.
    public let root: URL
    public let name: String

    public init(root: URL, name: String) {
        self.root = root
        self.name = name
    }

    /// `OUT/.history/NAME`.
    public var folder: URL { root.appendingPathComponent(".history").appendingPathComponent(name) }

    /// The kept datasets' folder names, oldest first.
    public func entries() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    /// When the dataset in `folder` was released, as a folder name: its manifest's
    /// `run.startedAt` without colons; the folder's modification time without a manifest.
    static func releaseName(of folder: String) -> String {
        if let bytes = try? FileBytes.read(path: folder + "/" + SideOutputs.manifestFile),
            let manifest = bytes.withUnsafeBufferPointer({ buffer -> Value? in
                var reader = JSONReader(bytes: buffer)
                return try? reader.readValue()
            }),
            let started = manifest.value(at: FieldPath(parsing: "/run/startedAt")!)?.string,
            !started.isEmpty, !started.contains("/")
        {
            return started.replacingOccurrences(of: ":", with: "")
        }
        let modified =
            (try? FileManager.default.attributesOfItem(atPath: folder)[.modificationDate] as? Date) ?? Date()
        return Timestamp.internetTime(secondsSince1970: modified.timeIntervalSince1970)
            .replacingOccurrences(of: ":", with: "")
    }

    /// Moves the replaced dataset at `previous` into the history and removes all but the
    /// newest `keep` kept datasets. Best effort after a release: what cannot be kept is
    /// removed, as without `--keep`.
    func keep(_ previous: String, keep: Int, threads: Threads) {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let base = Self.releaseName(of: previous)
        var name = base
        var number = 1
        while FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
            number += 1
            name = "\(base)-\(number)"
        }
        if rename(previous, folder.appendingPathComponent(name).path) != 0 {
            OutputDirectory.remove(previous, threads: threads)
        }
        for old in entries().dropLast(keep) {
            OutputDirectory.remove(folder.appendingPathComponent(old).path, threads: threads)
        }
    }

    /// What a rollback did.
    public struct Rollback: Sendable {
        /// The kept dataset now in place (its folder name: when it was released).
        public let restored: String
        /// Where the dataset it replaced was moved (`OUT/.NAME.rolled-back`).
        public let replacedAt: String
        /// Kept datasets left in the history.
        public let remaining: Int
    }

    /// Puts the newest kept dataset back in place of `OUT/NAME` in one step (a folder
    /// exchange), under the dataset's run lock; the dataset it replaces is moved to
    /// `OUT/.NAME.rolled-back` (replacing an earlier one). A rollback after another goes
    /// one release further back.
    public static func rollback(dataset path: String, lockTimeout: Double, onWait: () -> Void) throws -> Rollback {
        let target = URL(fileURLWithPath: path).standardizedFileURL
        let history = DatasetHistory(root: target.deletingLastPathComponent(), name: target.lastPathComponent)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw RollbackError("\(Paths.display(target.path)) is not a dataset folder")
        }
        let lock = try RunLock(
            path: history.root.appendingPathComponent(".\(history.name).lock").path, timeout: lockTimeout,
            onWait: onWait)
        defer { withExtendedLifetime(lock) {} }
        guard let newest = history.entries().last else {
            throw RollbackError(
                "no earlier dataset of \(history.name) is kept in \(Paths.display(history.folder.path)) (runs keep them with --keep N)"
            )
        }
        let kept = history.folder.appendingPathComponent(newest)
        let aside = history.root.appendingPathComponent(".\(history.name).rolled-back")
        OutputDirectory.remove(aside.path, threads: Threads(1))
        let replaced = try OutputDirectory.swap(kept, into: target, aside: aside)
        // After an exchange the history entry holds the dataset that was in place: set it aside.
        if replaced != aside.path, rename(replaced, aside.path) != 0 {
            throw IOFailure(
                "rolled back, but cannot move the replaced dataset to \(aside.path): \(String(cString: strerror(errno)))"
            )
        }
        return Rollback(
            restored: newest, replacedAt: Paths.display(aside.path), remaining: history.entries().count)
    }
}

/// A rollback that cannot be done (exit 2): no such dataset, nothing kept to go back to.
public struct RollbackError: ExitCoded, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var exitStatus: ExitStatus { .usage }
    public var description: String { "error: \(message)" }
}
