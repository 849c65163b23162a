import CSeedForgeSupport
import Foundation

/// Reads an input file's bytes, decompressing gzip (`.json.gz`, recognised by its magic
/// bytes, so the extension does not matter). Line and column in messages about a
/// compressed file count in its decompressed text. A file larger than `maxBytes`
/// (`limits.max-file-bytes`) as stored or decompressed is a source error; decompression
/// stops at the limit, so a gzip bomb costs no more than `maxBytes` of memory.
public enum InputFile {
    public struct Contents {
        /// The bytes as stored (what the manifest's SHA-256 describes).
        public let raw: [UInt8]
        /// The text to parse: `raw`, or its decompressed form.
        public let text: [UInt8]
    }

    public static func read(_ path: String, maxBytes: Int = InputLimits.defaultMaxFileBytes) throws -> Contents {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw IOFailure("cannot read \(Paths.display(path)): \(FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")")
        }
        defer { try? handle.close() }
        // A regular file's size is known before reading it; anything else is checked after.
        var status = stat()
        if fstat(handle.fileDescriptor, &status) == 0, Int(status.st_size) > maxBytes {
            throw tooLarge(path, "size (\(status.st_size) bytes)", maxBytes)
        }
        let raw: [UInt8]
        do {
            raw = [UInt8](try handle.readToEnd() ?? Data())
        } catch {
            throw IOFailure("cannot read \(Paths.display(path)): \(error.localizedDescription)")
        }
        if raw.count > maxBytes { throw tooLarge(path, "size (\(raw.count) bytes)", maxBytes) }
        guard raw.count >= 2, raw[0] == 0x1F, raw[1] == 0x8B else { return Contents(raw: raw, text: raw) }
        return Contents(raw: raw, text: try gunzip(raw, path: path, maxBytes: maxBytes))
    }

    static func tooLarge(_ path: String, _ what: String, _ maxBytes: Int) -> SourceError {
        SourceError(
            location: Location(file: Paths.display(path), line: 1, column: 1, pointer: ""),
            message: InputLimits.exceeded(what, key: "max-file-bytes", limit: maxBytes))
    }

    static func gunzip(_ bytes: [UInt8], path: String, maxBytes: Int) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { buffer in
            seedforge_gunzip(buffer.baseAddress, buffer.count, max(0, maxBytes), &output, &length, &message, message.count)
        }
        if status == -2 { throw tooLarge(path, "decompressed size", maxBytes) }
        guard status == 0, let output else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SourceError(location: Location(file: Paths.display(path), line: 1, column: 1, pointer: ""), message: text)
        }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }
}
