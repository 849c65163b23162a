/// A source of a loaded pipeline: its collection name, kind, resolved files and mapping.
public struct SourceDefinition: Sendable {
    public let collection: CollectionID
    public let kindName: String
    public let kind: any SourceKind
    /// Resolved paths, in read order.
    public internal(set) var files: [String]
    public internal(set) var mapping: FieldMapping
    /// The folder the source's path starts from (HTML pages' addresses are relative to it).
    public let root: String
}

/// A step of a loaded pipeline.
public enum PlannedStep: Sendable {
    case validate(ValidateStep)
    case step(any Step, stage: Stage, kind: String)

    public var label: String {
        switch self {
        case .validate(let step): return step.label
        case .step(_, let stage, let kind): return "\(stage.rawValue): \(kind)"
        }
    }

    public var collection: CollectionID {
        switch self {
        case .validate(let step): return step.collection
        case .step(let step, _, _): return step.collection
        }
    }
}

/// Pipeline-wide reject thresholds.
public struct Thresholds: Sendable {
    /// Most rejected records allowed over all collections (nil: no limit).
    public var maxRejects: Int?
    /// Largest fraction of a collection's records that may be rejected.
    public var maxRejectFraction: Double

    public static let defaultMaxRejectFraction = 0.5
}

/// A pipeline definition, loaded and checked: everything a run needs, nothing read yet.
public struct Pipeline: Sendable {
    public let name: String
    public let description: String?
    /// The definition file as given on the command line.
    public let file: String
    public let fileSHA256: String
    /// The folder of the definition file: relative paths in it, and paths written into
    /// datasets, are relative to this folder.
    public let baseDirectory: String
    public internal(set) var sources: [SourceDefinition]
    public let steps: [PlannedStep]
    public let outputs: [OutputDefinition]
    public let thresholds: Thresholds
    /// What one input file, value and record may hold (`limits:`).
    public let limits: InputLimits
    /// Final schema of each collection (after every step has added its fields).
    public let schemas: [CollectionID: Schema]
    public let collections: [CollectionID]
    /// Collections made by steps (statistics): they read no records.
    public let derivedCollections: Set<CollectionID>
    /// Collections only looked up by steps: kept to the end, not written.
    public let referenceCollections: Set<CollectionID>
    /// The fields each collection of the dataset is matched by when a run compares it with
    /// the previous dataset (`changes:`, a group's fields, or the source's `id`).
    public internal(set) var changeKeys: [CollectionID: [FieldID]] = [:]
    /// `budgets:`: how much a new dataset may differ from the previous one.
    public internal(set) var budgets = Budgets()

    /// Whether an output (without `where`) writes every record of the collection.
    public func writes(_ collection: CollectionID) -> Bool {
        outputs.contains { $0.collection == collection && $0.isComplete }
    }
}
