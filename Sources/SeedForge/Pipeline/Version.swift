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
}
