/// A JSON text that cannot be read, with the byte offset where reading stopped.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public let offset: Int
    public let message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }
}
