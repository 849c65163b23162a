/// A collection of a pipeline, as the definition names it under `sources:` (or as a step
/// that makes one names it: `group-stats`' `into`). Stages, outputs, side outputs and
/// partial results pass this, not a bare `String`, so a collection cannot be confused
/// with a file, a field or a step label; its `name` is what outputs write, unchanged.
public struct CollectionID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) { self.name = name }

    public var description: String { name }

    public static func < (lhs: CollectionID, rhs: CollectionID) -> Bool { lhs.name < rhs.name }
}
