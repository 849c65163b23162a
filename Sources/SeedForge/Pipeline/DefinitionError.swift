/// A mistake in a pipeline definition, pointing at the YAML line and column.
public struct DefinitionError: Error, Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let column: Int
    public let message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(file):\(line):\(column): error: \(message)" }
}

/// All the mistakes found in one or more definitions. Loading reports as many as it can
/// in one go, so a user fixes them in one pass.
public struct DefinitionErrors: Error, Sendable, CustomStringConvertible {
    public let errors: [DefinitionError]

    public init(_ errors: [DefinitionError]) { self.errors = errors }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// Gathers definition errors while loading goes on, so one pass reports them all.
struct ErrorCollector {
    var errors: [DefinitionError] = []
    let fallback: ConfigNode

    /// Runs `body`; on a definition error records it and returns nil.
    mutating func attempt<T>(_ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch let error as DefinitionError {
            errors.append(error)
        } catch let list as DefinitionErrors {
            errors += list.errors
        } catch {
            errors.append(fallback.error("\(error)"))
        }
        return nil
    }
}
