import Foundation

/// Whether the snapshot a run writes repeats the previous dataset's byte for byte,
/// checked piece by piece as it is written, while each piece is still in the cache.
///
/// A rerun on unchanged inputs (a nightly job on a day nothing moved, a `make` target
/// run again) writes the snapshot it replaces. Finding that out from the two files
/// took reading the previous snapshot's lines, reading the new one back from disk and
/// comparing them line by line, on one thread after every output was written: at 1M CSV
/// rows (two 75 MB snapshots) about 40 ms of the run's end, and two tables of a million
/// line positions (8 MB each). Checked as it is written, it costs one `memcmp` a piece,
/// and the comparison reads nothing back. Any other snapshot is compared as before, from the
/// files (`ChangeComparison`): this check only decides that nothing changed.
struct SnapshotRepeat {
    /// The previous dataset's snapshot; nil when there is none to repeat (a first run,
    /// a file that cannot be opened: the comparison says why, from the files).
    private let previous: FileBytes?
    /// How far the pieces written so far have matched the previous snapshot's bytes.
    private var matched = 0
    private var differs = false
    /// The previous file's pages go behind the check, as they do behind a comparison.
    private var pass: FileBytes.ReleasingPass?

    init(previousFolder folder: String) {
        let file: FileBytes?
        do { file = try FileBytes.read(path: folder + "/" + Snapshot.file) } catch { file = nil }
        previous = file
        if let file { pass = FileBytes.ReleasingPass(file, from: 0, step: Snapshot.releaseStep) }
    }

    /// The next piece of the new snapshot.
    mutating func check(_ piece: [UInt8]) {
        guard !differs, let previous else { return }
        let same = piece.withUnsafeBufferPointer { piece in
            matched + piece.count <= previous.count
                && UnsafeBufferPointer(rebasing: previous.buffer[matched..<(matched + piece.count)]).sameBytes(
                    as: piece)
        }
        guard same else {
            differs = true
            pass?.end(at: previous.count)
            return
        }
        matched += piece.count
        pass?.reached(matched)
    }

    /// Whether every piece written matched and together they are the whole previous file.
    mutating func repeated() -> Bool {
        guard let previous, !differs else { return false }
        pass?.end(at: previous.count)
        return matched == previous.count
    }
}
