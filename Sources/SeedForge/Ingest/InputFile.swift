import CSeedForgeSupport
import Foundation

/// Reads an input file's bytes, decompressing gzip (`.json.gz`, recognised by its magic
/// bytes, so the extension does not matter). Line and column in messages about a
/// compressed file count in its decompressed text.
public enum InputFile {
    public struct Contents {
        /// The bytes as stored (what the manifest's SHA-256 describes).
        public let raw: FileBytes
        /// The text to parse: `raw`, or its decompressed form.
        public let text: FileBytes
    }

    public static func read(_ path: String) throws -> Contents {
        let raw = try FileBytes.read(path: path)
        guard raw.count >= 2, raw[0] == 0x1F, raw[1] == 0x8B else { return Contents(raw: raw, text: raw) }
        return Contents(raw: raw, text: try gunzip(raw.buffer, path: path))
    }

    static func gunzip(_ bytes: UnsafeBufferPointer<UInt8>, path: String) throws -> FileBytes {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = seedforge_gunzip(bytes.baseAddress, bytes.count, &output, &length, &message, message.count)
        guard status == 0, let output else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SourceError(location: Location(file: Paths.display(path), line: 1, column: 1, pointer: ""), message: text)
        }
        return FileBytes(adoptingMalloc: output, count: length)
    }
}
