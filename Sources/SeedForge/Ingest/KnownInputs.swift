import Foundation

/// The input files the dataset being replaced was made from, as its manifest lists them:
/// each file's SHA-256 and its stamp when it was read (size, inode, modification and
/// status-change time). A file whose stamp is the same now was not written since, so
/// its hash is taken from there instead of reading every byte again: a forced rerun of
/// the 1M-row CSV saves hashing 67 MB (about 35 ms of CPU), a nightly crawl the pages
/// that did not change. `seedforge run` without `--force` already trusts these stamps to
/// find a dataset up to date (`UpToDate`), and the merge of sharded runs to take a file
/// as its shard read it; a file with another stamp is hashed as before.
struct KnownInputs {
    /// By the file's path as the manifest writes it (relative to the pipeline's folder).
    private var known: [String: (stamp: FileStamp, sha256: String)] = [:]
    private let baseDirectory: String

    /// Nothing known: every file is hashed.
    init(baseDirectory: String) {
        self.baseDirectory = baseDirectory
    }

    /// The inputs listed by the manifest in the dataset folder `folder`; none when it has
    /// no manifest, or one that cannot be read (a first run, a damaged dataset).
    init(datasetFolder folder: String, baseDirectory: String) {
        self.baseDirectory = baseDirectory
        guard let manifest = try? JSONFile.value(at: folder + "/" + SideOutputs.manifestFile) else { return }
        func list(_ key: String, in value: Value?) -> [Value] {
            guard case .array(let items)? = value?.member(key) else { return [] }
            return items
        }
        var stamps: [String: FileStamp] = [:]
        for entry in list("inputs", in: manifest.member("run")) {
            guard let file = entry.member("file")?.string, let text = entry.member("stamp")?.string,
                let stamp = FileStamp(text: text)
            else { continue }
            stamps[file] = stamp
        }
        for entry in list("inputs", in: manifest) {
            guard let file = entry.member("file")?.string, let sha256 = entry.member("sha256")?.string,
                Self.isHash(sha256), let stamp = stamps[file]
            else { continue }
            known[file] = (stamp, sha256)
        }
    }

    /// Whether `text` is a SHA-256 as manifests write it: 64 lowercase hexadecimal digits
    /// (a damaged value is not carried into the next manifest; the file is hashed).
    static func isHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The stamp and hash recorded for the input at `path`, if any (whether the file still
    /// has that stamp is checked when it is opened: `InputFile.read`).
    func entry(for path: String) -> (FileStamp, String)? {
        known[Paths.relative(path, to: baseDirectory)].map { ($0.stamp, $0.sha256) }
    }
}

extension FileStamp {
    /// A stamp as `text` writes it (`bytes:inode:modified:changed`); nil for anything else.
    init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4, let bytes = Int(parts[0]), let inode = UInt64(parts[1]),
            let modified = Int64(parts[2]), let changed = Int64(parts[3])
        else { return nil }
        self.init(bytes: bytes, inode: inode, modified: modified, changed: changed)
    }
}
