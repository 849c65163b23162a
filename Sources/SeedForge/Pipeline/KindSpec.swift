/// The six stages of a pipeline. Each kind of source, rule, normaliser, enricher,
/// aggregation and output belongs to exactly one.
public enum Stage: String, CaseIterable, Sendable {
    case ingest, validate, normalize, enrich, aggregate, emit
}

/// One key a kind accepts in YAML: the single place that lint, loading and the docs read.
public struct KeySpec: Sendable {
    public let name: String
    public let required: Bool
    public let summary: String

    public init(_ name: String, required: Bool = false, _ summary: String) {
        self.name = name
        self.required = required
        self.summary = summary
    }
}

/// The description of a kind: its YAML name, what it does, its keys, the rest of what a
/// user needs to know about it, and an example. The README's kinds reference and
/// `seedforge kinds` are made from these (`seedforge kinds --markdown`).
public struct KindSpec: Sendable {
    public let stage: Stage
    public let name: String
    /// One sentence: what the kind does.
    public let summary: String
    public let keys: [KeySpec]
    /// What the keys alone do not say: behaviour, edge cases, findings and rule codes
    /// (Markdown paragraphs; empty when the keys say it all).
    public let details: String
    /// YAML as it is written in a pipeline: a source's `NAME: {kind: ...}`, a step's or an
    /// output's list item. It loads in one of the repository's pipelines (tested).
    public let example: String

    public init(stage: Stage, name: String, summary: String, keys: [KeySpec], details: String = "", example: String) {
        self.stage = stage
        self.name = name
        self.summary = summary
        self.keys = keys
        self.details = details
        self.example = example
    }
}

/// Keys every step accepts, whatever its kind.
enum CommonKeys {
    static let collection = KeySpec(
        "collection", required: true, #"the collection the step works on (a source's name, or one a step made)"#)
    static let severity = KeySpec(
        "severity", #"`error` (default): the record is rejected; `warning`: reported in `warnings.ndjson`, record kept"#
    )
    static let maxRejects = KeySpec(
        "max-rejects",
        #"fail the run when this rule flags more records than this (rejects them, or for `severity: warning` warns about them)"#
    )
    static let maxRejectFraction = KeySpec(
        "max-reject-fraction", #"fail the run when this rule flags more than this fraction of the records it checked"#)
}
