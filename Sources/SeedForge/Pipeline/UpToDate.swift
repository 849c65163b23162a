import Foundation

/// Whether the dataset a run would replace already is what the run would write: its
/// manifest was written by the same build of seedforge for the same pipeline definition
/// (SHA-256 of the file) from the same input files, each with the bytes it has now, and
/// every output it lists is still there as written. Then a nightly run has nothing to do.
///
/// An input whose stamp (size, inode, modification and status-change time) equals what
/// the manifest recorded is not read; any other is hashed, so a file touched but rewritten
/// with the same bytes is not a change. A source that follows links (`next`,
/// `next-page-token`) may have read more files than its `path` names: the manifest's list
/// of them counts, and since each page names the next in its own bytes, equal pages mean
/// an equal chain.
enum UpToDate {
    /// Nil when the dataset at `target` is up to date with `pipeline`; otherwise why not
    /// (for `--verbose`).
    static func staleness(of target: URL, for pipeline: Pipeline) -> String? {
        let manifestURL = target.appendingPathComponent(SideOutputs.manifestFile)
        guard let bytes = try? FileBytes.read(path: manifestURL.path),
            let manifest = bytes.withUnsafeBufferPointer({ buffer -> Value? in
                var reader = JSONReader(bytes: buffer)
                return try? reader.readValue()
            })
        else { return "no manifest of a previous run" }
        func text(_ value: Value, _ pointer: String) -> String? {
            value.value(at: FieldPath(parsing: pointer)!)?.string
        }
        func number(_ value: Value, _ key: String) -> Int? {
            guard case .int(let number)? = value.value(at: FieldPath(components: [.key(key)])) else { return nil }
            return Int(number)
        }
        func list(_ pointer: String) -> [Value] {
            guard case .array(let items)? = manifest.value(at: FieldPath(parsing: pointer)!) else { return [] }
            return items
        }

        guard text(manifest, "/tool/version") == SeedForgeVersion.current,
            text(manifest, "/run/build") == SeedForgeVersion.build
        else { return "made by another build of seedforge" }
        guard text(manifest, "/pipeline/sha256") == pipeline.fileSHA256 else {
            return "the pipeline definition changed"
        }
        let recordedStamps = Dictionary(
            list("/run/inputs").compactMap { entry -> (String, String)? in
                guard let file = text(entry, "/file"), let stamp = text(entry, "/stamp") else { return nil }
                return (file, stamp)
            },
            uniquingKeysWith: { first, _ in first })

        // The files each collection would be read from, against those it was read from.
        let inputs = list("/inputs")
        var recordedByCollection: [String: [String]] = [:]
        for input in inputs {
            guard let collection = text(input, "/collection"), let file = text(input, "/file") else {
                return "the manifest's inputs are unreadable"
            }
            recordedByCollection[collection, default: []].append(file)
        }
        for collection in Set(pipeline.sources.map(\.collection)) {
            let sources = pipeline.sources.filter { $0.collection == collection }
            let wanted = sources.flatMap { $0.files.map { Paths.relative($0, to: pipeline.baseDirectory) } }
            let recorded = recordedByCollection[collection.name] ?? []
            if sources.contains(where: { $0.kind.followsLinks }) {
                if let missing = wanted.first(where: { !recorded.contains($0) }) {
                    return "\(missing) was not read before"
                }
            } else if wanted != recorded {
                return "the files of \(collection) are not those read before"
            }
        }
        if recordedByCollection.keys.contains(where: { collection in
            !pipeline.sources.contains { $0.collection.name == collection }
        }) {
            return "a collection read before has no source now"
        }

        for input in inputs {
            guard let file = text(input, "/file"), let sha256 = text(input, "/sha256"),
                let size = number(input, "bytes")
            else { return "the manifest's inputs are unreadable" }
            let path = URL(
                fileURLWithPath: file, relativeTo: URL(fileURLWithPath: pipeline.baseDirectory, isDirectory: true)
            ).path
            guard let stamp = FileStamp.of(path), stamp.bytes == size else { return "\(file) changed" }
            if recordedStamps[file] == stamp.text { continue }
            guard let contents = try? FileBytes.read(path: path), SHA256.hex(buffer: contents.buffer) == sha256 else {
                return "\(file) changed"
            }
        }

        // Every output is still there with its files and bytes, none written after the manifest.
        guard let written = bytes.stamp?.modified else { return "no manifest of a previous run" }
        for output in list("/outputs") {
            guard let file = text(output, "/file"), let size = number(output, "bytes"),
                let count = number(output, "files")
            else { return "the manifest's outputs are unreadable" }
            guard let found = DatasetFiles.stamps(under: target.appendingPathComponent(file).path),
                found.count == count,
                found.reduce(0, { $0 + $1.bytes }) == size, found.allSatisfy({ $0.modified <= written })
            else { return "\(file) in the dataset was changed or removed" }
        }
        return nil
    }
}

/// The files of a dataset's output: the file itself, or every file under a folder output
/// (read with `readdir` and `fstatat`: a `pages` output may hold tens of thousands).
enum DatasetFiles {
    static func stamps(under path: String) -> [FileStamp]? {
        if let one = FileStamp.of(path) { return [one] }
        var stamps: [FileStamp] = []
        return walk(path, into: &stamps) ? stamps : nil
    }

    private static func walk(_ path: String, into stamps: inout [FileStamp]) -> Bool {
        guard let folder = opendir(path) else { return false }
        defer { closedir(folder) }
        let fd = dirfd(folder)
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return false }
            switch info.st_mode & S_IFMT {
            case S_IFREG: stamps.append(FileStamp(info))
            case S_IFDIR: guard walk(path + "/" + name, into: &stamps) else { return false }
            default: break
            }
        }
        return true
    }
}
