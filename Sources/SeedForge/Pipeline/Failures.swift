/// The documented exit codes of the `seedforge` command.
public enum ExitStatus: Int32, Sendable {
    /// Everything ran; rejects, if any, stayed within thresholds.
    case ok = 0
    /// The data failed: a malformed source, a threshold exceeded, or (validate) error findings.
    case dataFailed = 1
    /// Bad usage or a pipeline definition error.
    case usage = 2
    /// An I/O or internal error (unwritable output, lock timeout, broken invariant).
    case ioOrInternal = 3
}

/// An error that knows which exit code it means.
public protocol ExitCoded: Error, CustomStringConvertible {
    var exitStatus: ExitStatus { get }
}

extension DefinitionError: ExitCoded { public var exitStatus: ExitStatus { .usage } }
extension DefinitionErrors: ExitCoded { public var exitStatus: ExitStatus { .usage } }
extension SourceError: ExitCoded { public var exitStatus: ExitStatus { .dataFailed } }

/// Reject thresholds exceeded: the run fails and the previous outputs stay.
public struct ThresholdError: ExitCoded, Sendable {
    public let dataset: String
    public let failures: [String]
    public var exitStatus: ExitStatus { .dataFailed }
    public var description: String {
        "\(dataset): reject threshold exceeded, outputs left unchanged:\n"
            + failures.map { "  - \($0)" }.joined(separator: "\n")
    }
}

/// Data that cannot be written as the pipeline asks (exit 1): the run fails, the previous
/// outputs stay.
public struct DataFailure: ExitCoded, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var exitStatus: ExitStatus { .dataFailed }
    public var description: String { "error: \(message)" }
}

/// An I/O failure: a file that cannot be read or written, a lock not obtained.
public struct IOFailure: ExitCoded, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var exitStatus: ExitStatus { .ioOrInternal }
    public var description: String { "error: \(message)" }
}

/// A broken invariant inside seedforge (a bug): the run stops and writes nothing.
public struct InternalFailure: ExitCoded, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var exitStatus: ExitStatus { .ioOrInternal }
    public var description: String { "internal error: \(message)" }
}
