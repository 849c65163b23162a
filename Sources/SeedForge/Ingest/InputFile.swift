import CSeedForgeSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads an input file's bytes, decompressing gzip (`.json.gz`, recognised by its magic
/// bytes, so the extension does not matter). Line and column in messages about a
/// compressed file count in its decompressed text. A file larger than `maxBytes`
/// (`limits.max-file-bytes`) as stored or decompressed is a source error; decompression
/// stops at the limit, so a gzip bomb costs no more than `maxBytes` of memory.
public enum InputFile {
    public struct Contents {
        /// The bytes as stored (what the manifest's SHA-256 describes).
        public let raw: FileBytes
        /// The text to parse: `raw`, or its decompressed form.
        public let text: FileBytes
        /// SHA-256 of `raw`: the hash of the bytes parsed.
        public var sha256: String { digest.value }
        /// Takes that hash once, when first asked for: beside the merge of the file's
        /// records where a source merges them (`IngestSink.merge`), so that the hash does
        /// not hold up the parse on one thread while the others wait.
        let digest: InputDigest
    }

    /// `known`: the file's stamp and hash when it was read before; while its stamp is the
    /// same (size, inode, modification and status-change time) it is not hashed again.
    public static func read(
        _ path: String, maxBytes: Int = InputLimits.defaultMaxFileBytes, known: (FileStamp, String)? = nil
    ) throws -> Contents {
        // Mapping a file costs no memory: its size is checked before any byte is read.
        let raw = try FileBytes.read(path: path)
        if raw.count > maxBytes { throw tooLarge(path, "size (\(raw.count) bytes)", maxBytes) }
        // The stamp of the file opened (`fstat`), not of the path now: a file renamed into
        // place since it was opened is not taken for the one read.
        let digest = InputDigest(raw, known: known.flatMap { raw.stamp == $0.0 ? $0.1 : nil })
        guard raw.count >= 2, raw[0] == 0x1F, raw[1] == 0x8B else {
            return Contents(raw: raw, text: raw, digest: digest)
        }
        return Contents(raw: raw, text: try gunzip(raw.buffer, path: path, maxBytes: maxBytes), digest: digest)
    }

    /// SHA-256 of a file's bytes. A large mapped file is hashed a piece at a time, the pages
    /// behind released: hashing does not bring the whole file into memory (the parse reads
    /// it again from the page cache, a window at a time).
    /// With `count`, of its first `count` bytes.
    static func hash(_ raw: FileBytes, count: Int? = nil) -> String {
        let piece = FileBytes.releaseStep
        let count = count ?? raw.count
        guard count > 2 * piece else { return SHA256.hex(buffer: UnsafeBufferPointer(rebasing: raw.buffer[..<count])) }
        let stream = SHA256.Stream()
        var pass = FileBytes.ReleasingPass(raw)
        var start = 0
        while start < count {
            let end = min(start + piece, count)
            stream.update(UnsafeBufferPointer(rebasing: raw.buffer[start..<end]))
            pass.reached(end)
            start = end
        }
        pass.end(at: count)
        return stream.finish()
    }

    /// The SHA-256 of an input file's stored bytes, taken once, by whichever thread asks
    /// first (the others wait for it).
    final class InputDigest: @unchecked Sendable {
        private let raw: FileBytes
        private let lock = NSLock()
        private var taken: String?
        /// The hash of the bytes before `hashed`, when taken a part at a time (`advance`).
        private var stream: SHA256.Stream?
        private var hashed = 0

        /// `known`: the hash of a file whose stamp shows it unchanged since it was hashed.
        init(_ raw: FileBytes, known: String?) {
            self.raw = raw
            taken = known
        }

        var value: String {
            lock.withLock {
                if let taken { return taken }
                let made: String
                if let stream {
                    stream.update(UnsafeBufferPointer(rebasing: raw.buffer[hashed...]))
                    made = stream.finish()
                    self.stream = nil
                } else {
                    made = InputFile.hash(raw)
                }
                taken = made
                return made
            }
        }

        /// Hashes the stored bytes up to the same share of them as `reached` is of `of`
        /// (a place in the file's text, which a compressed file's stored bytes follow
        /// about evenly): a file read a window at a time is hashed a window at a time,
        /// as one task among the window's parse, not whole beside the first window's
        /// records while every other thread waited (1.9 GB at 20M cities: 1.7 s alone).
        func advance(reached: Int, of total: Int) {
            lock.withLock {
                guard taken == nil, total > 0 else { return }
                let end = min(raw.count, Int((Double(raw.count) * Double(reached) / Double(total)).rounded(.down)))
                guard end > hashed else { return }
                let stream = self.stream ?? SHA256.Stream()
                self.stream = stream
                stream.update(UnsafeBufferPointer(rebasing: raw.buffer[hashed..<end]))
                hashed = end
            }
        }
    }

    static func tooLarge(_ path: String, _ what: String, _ maxBytes: Int) -> SourceError {
        SourceError(
            location: Location(file: Paths.display(path), line: 1, column: 1, pointer: ""),
            message: InputLimits.exceeded(what, key: "max-file-bytes", limit: maxBytes))
    }

    static func gunzip(_ bytes: UnsafeBufferPointer<UInt8>, path: String, maxBytes: Int) throws -> FileBytes {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = seedforge_gunzip(
            bytes.baseAddress, bytes.count, max(0, maxBytes), &output, &length, &message, message.count)
        if status == -2 { throw tooLarge(path, "decompressed size", maxBytes) }
        guard status == 0, let output else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SourceError(
                location: Location(file: Paths.display(path), line: 1, column: 1, pointer: ""), message: text)
        }
        return FileBytes(adoptingMalloc: output, count: length)
    }
}

/// Opening a file lives with the reading of inputs, not in Model: it maps the file (or
/// reads what cannot be mapped) and reports a file it cannot read as an I/O failure (exit
/// code 3). Inputs, and the manifests and snapshots of a previous dataset, are read so.
extension FileBytes {
    /// The file's bytes, mapped read-only; read into memory where the file cannot be
    /// mapped (a pipe, a special file).
    public static func read(path: String) throws -> FileBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason =
                errno == ENOENT
                ? "no such file" : errno == EACCES ? "permission denied" : String(cString: strerror(errno))
            throw IOFailure("cannot read \(Paths.display(path)): \(reason)")
        }
        defer { close(fd) }
        var info = stat()
        let regular = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        // Taken before any byte is read: a change while reading shows as a newer time.
        let stamp = regular ? FileStamp(info) : nil
        if regular {
            // An empty size may still have contents (files of /proc): read those.
            let size = Int(info.st_size)
            if size > 0, let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED {
                let bytes = FileBytes(mapping: address, count: size)
                bytes.stamp = stamp
                return bytes
            }
        }
        // Not mappable (a pipe, a special or empty file): read it to the end.
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw IOFailure("cannot read \(Paths.display(path)): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        let copy = FileBytes(copying: bytes)
        copy.stamp = stamp
        return copy
    }
}
