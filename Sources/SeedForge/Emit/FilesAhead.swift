import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Linux's `SCHED_IDLE` policy, which Swift's Glibc module leaves out (glibc declares it
/// only for `_GNU_SOURCE`).
private let idlePolicy: Int32 = 5

/// A first run's page files, created empty in the staging folder while the steps run, so
/// that the output that writes them opens them instead of creating them.
///
/// Creating a small file on this machine's ext4 costs about 22 µs of kernel time under its
/// folder's lock, whatever the thread (the shipped cities' 23,256 pages: 0.84 s, the
/// outputs' longest task, with the other thread idle at its end), while the steps between
/// ingest and the outputs (dedupes, sort) leave part of a core idle for about 0.3 s. Opening
/// a file that exists and writing it costs about 8 µs (a Python loop of 23,256 files of
/// 1.5 KB: 0.86 s of system time created and written, 0.44 s created empty, 0.18 s opened
/// and written).
///
/// Only for outputs of many files (`OutputFormat.fileNames`) whose folder the dataset being
/// replaced does not have: a rerun links its unchanged pages from that folder instead
/// (`StagedFolder`), which a file already there would only get in the way of. Only with a
/// budget of 2 threads or more: the creator is one thread beside the budget, at the
/// scheduler's idle priority (`SCHED_IDLE`), so it takes only a core nothing else of the
/// run wants, and `--threads 1` runs as it did.
///
/// The files count is estimated from the records after ingest (before rejects and
/// duplicates): `stop` ends the creation when the outputs start and says which names
/// exist; the output removes those it did not write (`OutputDirectory.removeUnwritten`).
/// They are in the staging folder, so a failed run removes them with it, and a killed
/// run's leftovers are removed by the next run, as every staged file is.
final class FilesAhead: @unchecked Sendable {
    /// The most files of one output created ahead (about 10 MiB of names and set).
    static let mostFiles = 1 << 18

    /// The staging folder, made early so the files have a place.
    let folder: OutputDirectory
    /// Per output folder (its `file:`), the names to create, in the order it writes them.
    private let planned: [(file: String, names: [String])]
    /// How many names of each planned folder exist (a prefix of its names); written by the
    /// creator, read once it has stopped.
    private var created: [Int]
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    /// Whether a creating thread was started and not yet waited for (by `stop` or
    /// `abandon`, whichever comes first).
    private var running = false

    /// Makes the staging folder of `target` and starts creating the files of every output
    /// that makes many, or returns nil (the folder then made by the outputs as before) when
    /// no output wants any or the budget has no second thread.
    ///
    /// Only an optimisation, so never an error: a staging folder that cannot be made here
    /// (a folder made read-only since the lock was taken, a full disk) is reported by the
    /// outputs at their usual point, after the thresholds, as a run without it would.
    /// Outputs of more than `mostFiles` files are left to create their own: their names and
    /// the set of those created are held in memory beside the limit.
    static func start(_ pipeline: Pipeline, state: RunState, target: URL) -> FilesAhead? {
        guard state.threads.count >= 2 else { return nil }
        var planned: [(file: String, names: [String])] = []
        for output in pipeline.outputs where output.isComplete {
            let records = state.store(output.collection).count
            guard output.format.files(records: records) <= mostFiles else { continue }
            let names = output.format.fileNames(records: records)
            guard !names.isEmpty,
                !FileManager.default.fileExists(atPath: target.appendingPathComponent(output.file).path)
            else { continue }
            planned.append((output.file, names))
        }
        guard !planned.isEmpty else { return nil }
        guard let folder = try? OutputDirectory(target: target, threads: state.threads) else { return nil }
        let ahead = FilesAhead(folder: folder, planned: planned)
        ahead.begin()
        return ahead
    }

    init(folder: OutputDirectory, planned: [(file: String, names: [String])]) {
        self.folder = folder
        self.planned = planned
        created = Array(repeating: 0, count: planned.count)
    }

    /// Starts the creating thread.
    func begin() {
        running = true
        let thread = Thread { [self] in
            // Idle priority: the creator runs only on a core no other thread wants. Holding a
            // folder's lock while preempted is harmless: no one else creates there before
            // `stop` has waited for it.
            var param = sched_param()
            _ = pthread_setschedparam(pthread_self(), idlePolicy, &param)
            create()
            done.signal()
        }
        thread.start()
    }

    /// Creates the planned files until `stop` (on the calling thread: tests). A file that
    /// cannot be created ends the creating: the output then creates it, and reports what
    /// goes wrong with it.
    func create() {
        for (index, (file, names)) in planned.enumerated() {
            let path = folder.stagedPath(file)
            guard (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)) != nil
            else { return }
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            for name in names {
                if stopping.load(ordering: .relaxed) { return }
                let file = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                guard file >= 0 else { return }
                close(file)
                created[index] += 1
            }
        }
    }

    /// Ends the creation (waiting for the file being created) and returns, per output
    /// folder, the names that exist, empty; they are to be opened, not created.
    func stop() -> [String: Set<String>] {
        join()
        var reserved: [String: Set<String>] = [:]
        for (index, (file, names)) in planned.enumerated() where created[index] > 0 {
            reserved[file] = Set(names[..<created[index]])
        }
        return reserved
    }

    /// Ends the creation and hands over the staging folder, the files made in it marked as
    /// there to be opened (`OutputDirectory.reserved`).
    func handOver() -> OutputDirectory {
        var staged = folder
        staged.reserved = stop()
        return staged
    }

    /// Stops the creation and removes the staging folder (a run that failed before its
    /// outputs).
    func abandon() {
        join()
        folder.discard()
    }

    /// Tells the creator to stop and waits for it (once; the run's thread only).
    private func join() {
        stopping.store(true, ordering: .relaxed)
        guard running else { return }
        done.wait()
        running = false
    }
}
