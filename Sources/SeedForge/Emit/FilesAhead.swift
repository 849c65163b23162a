import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Linux's `SCHED_IDLE` policy, which Swift's Glibc module leaves out (glibc declares it
/// only for `_GNU_SOURCE`).
private let idlePolicy: Int32 = 5

/// A first run's page files, created empty in the staging folder while the ingest and the
/// steps run, so that the output that writes them opens them instead of creating them.
///
/// Creating a small file on this machine's ext4 costs about 22 µs of kernel time under its
/// folder's lock, whatever the thread (the shipped cities' 23,256 pages: 0.84 s, the
/// outputs' longest task, with the other thread idle at its end), while the ingest of a
/// paginated dump (each file's records taken on one thread) and the steps between ingest
/// and the outputs (dedupes, sort) leave part of a core idle. Opening a file that exists
/// and writing it costs about 8 µs (a Python loop of 23,256 files of 1.5 KB: 0.86 s of
/// system time created and written, 0.44 s created empty, 0.18 s opened and written).
/// Begun after the ingest, the creator had made 4,840 of the shipped cities' pages when the
/// outputs began; begun with the ingest, 12,539 (one run each, under strace).
///
/// Only for outputs of many files (`OutputFormat.fileNames`) whose folder the dataset being
/// replaced does not have: a rerun links its unchanged pages from that folder instead
/// (`StagedFolder`), which a file already there would only get in the way of. Only with a
/// budget of 2 threads or more: the creator is one thread beside the budget, at the
/// scheduler's idle priority (`SCHED_IDLE`), so it takes only a core nothing else of the
/// run wants, and `--threads 1` runs as it did.
///
/// The files are counted from the records read so far (`RecordsRead`, a file at a time),
/// then from the records after ingest (`settle`; before rejects and duplicates): `stop`
/// ends the creation when the outputs start and says which names exist; the output removes
/// those it did not write (`OutputDirectory.removeUnwritten`). They are in the staging
/// folder, so a failed run removes them with it, and a killed run's leftovers are removed by
/// the next run, as every staged file is.
final class FilesAhead: @unchecked Sendable {
    /// The most files of one output created ahead (about 10 MiB of names and set).
    static let mostFiles = 1 << 18

    /// One output folder to fill: its names for a count of records (`fileNames(records:)`,
    /// where the names for more records begin with those for fewer) and the collection
    /// whose records count.
    struct Plan {
        let file: String
        let collection: CollectionID
        let names: @Sendable (Int) -> [String]
    }

    /// The staging folder, made early so the files have a place.
    let folder: OutputDirectory
    private let plans: [Plan]
    /// Records read so far, by collection (the ingest's count while it goes on).
    private let read: @Sendable (CollectionID) -> Int
    /// The records after ingest, by collection, once `settle` gave them: the count the files
    /// are made for from then on.
    private let settled = Mutex<[CollectionID: Int]?>(nil)
    /// Per plan, the longest list of names made so far, and the count it was made for;
    /// written by the creator only.
    private var names: [[String]]
    private var countedFor: [Int]
    /// How many names of each planned folder exist (a prefix of its names); written by the
    /// creator, read once it has stopped.
    private var created: [Int]
    /// The open folder of each plan (-1 until made; -2 when it could not be, or once closed).
    private var folders: [Int32]
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    /// Whether a creating thread was started and not yet waited for (by `stop` or
    /// `abandon`, whichever comes first).
    private var running = false

    /// Makes the staging folder of `target` and starts creating the files of every output
    /// that makes many, or returns nil (the folder then made by the outputs as before) when
    /// no output wants any or the budget has no second thread. Called before the ingest.
    ///
    /// Only an optimisation, so never an error: a staging folder that cannot be made here
    /// (a folder made read-only since the lock was taken, a full disk) is reported by the
    /// outputs at their usual point, after the thresholds, as a run without it would.
    /// Outputs of more than `mostFiles` files are left to create the rest of their own:
    /// their names and the set of those created are held in memory beside the limit.
    static func start(_ pipeline: Pipeline, state: RunState, target: URL) -> FilesAhead? {
        guard state.threads.count >= 2 else { return nil }
        var plans: [Plan] = []
        for output in pipeline.outputs where output.isComplete {
            let format = output.format
            guard !format.fileNames(records: 1).isEmpty,
                !FileManager.default.fileExists(atPath: target.appendingPathComponent(output.file).path)
            else { continue }
            plans.append(
                Plan(file: output.file, collection: output.collection) { records in
                    format.files(records: records) <= mostFiles ? format.fileNames(records: records) : []
                })
        }
        guard !plans.isEmpty else { return nil }
        guard let folder = try? OutputDirectory(target: target, threads: state.threads) else { return nil }
        let recordsRead = state.recordsRead
        let ahead = FilesAhead(folder: folder, plans: plans) { recordsRead[$0] }
        ahead.begin()
        return ahead
    }

    init(folder: OutputDirectory, plans: [Plan], read: @escaping @Sendable (CollectionID) -> Int) {
        self.folder = folder
        self.plans = plans
        self.read = read
        names = Array(repeating: [], count: plans.count)
        countedFor = Array(repeating: 0, count: plans.count)
        created = Array(repeating: 0, count: plans.count)
        folders = Array(repeating: -1, count: plans.count)
    }

    /// Files of fixed names, their counts settled (tests).
    convenience init(folder: OutputDirectory, planned: [(file: String, names: [String])]) {
        let collection = CollectionID("ahead")
        self.init(
            folder: folder,
            plans: planned.map { plan in Plan(file: plan.file, collection: collection) { _ in plan.names } },
            read: { _ in 1 })
        settle([collection: 1])
    }

    /// The records after ingest, by collection: the files are made for these from now on.
    func settle(_ records: [CollectionID: Int]) {
        settled.withLock { $0 = records }
    }

    /// The counts the files are made for after ingest (the store's), once it is done.
    func settle(_ state: RunState) {
        settle(Dictionary(uniqueKeysWithValues: Set(plans.map(\.collection)).map { ($0, state.store($0).count) }))
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

    /// Creates the planned files until `stop`, or until every file of the settled counts
    /// exists (on the calling thread: tests), waiting a millisecond at a time for more
    /// records while the ingest goes on.
    func create() {
        while !stopping.load(ordering: .relaxed) {
            let final = settled.withLock { $0 }
            guard let progressed = createAvailable(settled: final) else { return }
            if !progressed {
                if final != nil { return }
                usleep(1_000)
            }
        }
    }

    /// Creates the files the records counted now call for; whether it made any, or nil when
    /// it cannot go on (stopped, or a file that cannot be created: the output then creates
    /// it, and reports what goes wrong with it).
    func createAvailable(settled final: [CollectionID: Int]? = nil) -> Bool? {
        var progressed = false
        for index in plans.indices {
            let plan = plans[index]
            let count = final?[plan.collection] ?? read(plan.collection)
            var wanted = names[index].count
            if count != countedFor[index] {
                let list = plan.names(count)
                if list.count > names[index].count { names[index] = list }
                countedFor[index] = count
                wanted = list.count
            }
            guard created[index] < wanted else { continue }
            guard let fd = openFolder(index) else { return nil }
            while created[index] < wanted {
                if stopping.load(ordering: .relaxed) { return nil }
                let file = openat(fd, names[index][created[index]], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                guard file >= 0 else { return nil }
                close(file)
                created[index] += 1
                progressed = true
            }
        }
        return progressed
    }

    /// The open staging folder of plan `index`, made on first use; nil if it cannot be.
    private func openFolder(_ index: Int) -> Int32? {
        if folders[index] == -1 {
            let path = folder.stagedPath(plans[index].file)
            let made =
                (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)) != nil
            let fd = made ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
            folders[index] = fd >= 0 ? fd : -2
        }
        return folders[index] >= 0 ? folders[index] : nil
    }

    /// Ends the creation (waiting for the file being created) and returns, per output
    /// folder, the names that exist, empty; they are to be opened, not created.
    func stop() -> [String: Set<String>] {
        join()
        var reserved: [String: Set<String>] = [:]
        for (index, plan) in plans.enumerated() where created[index] > 0 {
            reserved[plan.file] = Set(names[index][..<created[index]])
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
        if running {
            done.wait()
            running = false
        }
        for index in folders.indices where folders[index] >= 0 {
            close(folders[index])
            folders[index] = -2
        }
    }
}
