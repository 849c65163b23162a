import CSeedForgeSupport
import Foundation

/// The seedforge version written into every manifest.
public enum SeedForgeVersion {
    public static let current = "0.1.0"

    /// Which build of it is running: the version and the stamp of the executable (a rebuild
    /// is another build even when the version is not raised). Recorded in a manifest's run
    /// section, so a dataset made by another build is never taken as up to date.
    public static let build: String = {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return "\(current)+" + (FileStamp.of(executable).map { "\($0.bytes):\($0.inode):\($0.modified)" } ?? "unknown")
    }()

    /// The linker's build ID of the running executable in hexadecimal, or nil when it was
    /// linked without one. The linker computes it as a hash of the linked file, so another
    /// link of other code gets another ID (unless the build fixes it, `--build-id=0x...`);
    /// a file edited after linking keeps it, as a stripped copy does by design.
    public static let linkedBuildID: String? = {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = Int(seedforge_build_id(&bytes, Int32(bytes.count)))
        guard count > 0 else { return nil }
        return bytes.prefix(count).map { String(format: "%02x", $0) }.joined()
    }()
}
