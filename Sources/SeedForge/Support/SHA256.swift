import CSeedForgeSupport

/// SHA-256, for input and output checksums in the manifest and for stable ids. Computed
/// by OpenSSL's libcrypto (Debian libssl-dev), which uses the CPU's SHA extensions.
public enum SHA256 {
    /// The digest of `bytes` as 64 lower-case hexadecimal digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        let status = bytes.withUnsafeBufferPointer { buffer in
            digest.withUnsafeMutableBufferPointer { out in seedforge_sha256(buffer.baseAddress, buffer.count, out.baseAddress!) }
        }
        precondition(status == 0, "OpenSSL SHA-256 failed")
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
