/// A JSON text that cannot be read, with the byte offset where reading stopped.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public let offset: Int
    public let message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }
}

/// A string or number longer than the reader's `maxValueBytes` (`limits.max-value-bytes`):
/// the input is well-formed but over a limit, so the source fails the file instead of
/// rejecting a record.
public struct JSONLimitError: Error, Sendable, Equatable {
    /// Where the value starts (a string's opening quote).
    public let offset: Int
    /// Its length in bytes as written (between a string's quotes).
    public let length: Int
    /// "a string" or "a number".
    public let what: String
}
