import CSeedForgeSupport

/// SHA-256, for input and output checksums in the manifest and for stable ids. Computed
/// by OpenSSL's libcrypto (Debian libssl-dev), which uses the CPU's SHA extensions.
public enum SHA256 {
    /// The digest of `bytes` as 64 lower-case hexadecimal digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { hex(buffer: $0) }
    }

    /// The digest of the bytes in `buffer`.
    public static func hex(buffer: UnsafeBufferPointer<UInt8>) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        let status = digest.withUnsafeMutableBufferPointer { out in
            seedforge_sha256(buffer.baseAddress, buffer.count, out.baseAddress!)
        }
        precondition(status == 0, "OpenSSL SHA-256 failed")
        return hex(digest: digest)
    }

    /// 32 digest bytes as 64 lower-case hexadecimal digits.
    static func hex(digest: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        hex(Array(bytes))
    }
}

extension SHA256 {
    /// A digest of bytes given in pieces (an output written as a stream).
    public final class Stream {
        private var context: UnsafeMutableRawPointer?

        public init() {
            context = seedforge_sha256_begin()
            precondition(context != nil, "OpenSSL SHA-256 failed")
        }

        deinit {
            if let context {
                var ignored = [UInt8](repeating: 0, count: 32)
                _ = seedforge_sha256_end(context, &ignored)
            }
        }

        public func update(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let context, bytes.count > 0 else { return }
            precondition(
                seedforge_sha256_update(context, bytes.baseAddress, bytes.count) == 0, "OpenSSL SHA-256 failed")
        }

        /// The digest as hexadecimal digits; the stream takes no more bytes after it.
        public func finish() -> String {
            var digest = [UInt8](repeating: 0, count: 32)
            precondition(context != nil && seedforge_sha256_end(context, &digest) == 0, "OpenSSL SHA-256 failed")
            context = nil
            return SHA256.hex(digest: digest)
        }
    }
}
