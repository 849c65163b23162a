/// A step of a pipeline's `steps:` list: a normaliser, an enricher or an aggregation.
/// Its initialiser reads and checks its YAML eagerly, so a bad definition fails at load
/// (and in `lint`), never halfway through the data.
public protocol Step: Sendable {
    static var spec: KindSpec { get }
    init(config: ConfigMap, plan: PipelinePlan) throws
    /// The collection whose counts the step's statistics report.
    var collection: CollectionID { get }
    func run(_ state: RunState) throws
    /// Whether the step changes each record on its own, reading no other record and no
    /// other collection: a sharded run (`--shard`) runs such steps on its share alone.
    static var worksRecordByRecord: Bool { get }
    /// The other collection the step reads whole while it changes its own records one by
    /// one (`nearest`, `lookup`: `from`); nil for none. A sharded run runs such a step on its
    /// share when that collection is reference data that every shard reads whole.
    var lookedUp: CollectionID? { get }
    /// The collection the step makes from its own records (`unnest`: `into`); nil for none.
    var made: CollectionID? { get }
}

extension Step {
    public static var worksRecordByRecord: Bool { false }
    public var lookedUp: CollectionID? { nil }
    public var made: CollectionID? { nil }
}

/// A validation rule: checks one record at a time and reports findings. The `validate`
/// step around it adds the rule code, severity, locations and thresholds.
public protocol Rule: Sendable {
    static var spec: KindSpec { get }
    init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws
    func check(_ record: Record, _ findings: inout RuleFindings)
    /// Whether the rule compares records with each other (`unique`): it then sees the
    /// whole collection at once, even when it is spilled to disk.
    static var comparesRecords: Bool { get }
    /// Checks a whole collection, returning findings per record (in order). A default
    /// calls `check` record by record; rules that compare records override it.
    func checkAll(
        _ records: [Record], schema: Schema, code: RuleCode, severity: Severity, threads: Threads
    ) -> [[Finding]]
}

/// Collects what a rule finds wrong with one record.
public struct RuleFindings {
    /// The records checked, and the position of the one being checked: moving on to the
    /// next record sets a number (a copy of the record took a retain and a release of its
    /// row, every record of every rule).
    private let records: [Record]
    private var position: Int
    public var record: Record { records[position] }
    public let schema: Schema
    let rule: RuleCode
    let severity: Severity
    public private(set) var list: [Finding] = []

    init(records: [Record], position: Int, schema: Schema, rule: RuleCode, severity: Severity) {
        self.records = records
        self.position = position
        self.schema = schema
        self.rule = rule
        self.severity = severity
    }

    /// Starts over for the record at `next` (one collector serves a whole chunk of records).
    mutating func reset(_ next: Int) {
        position = next
        if !list.isEmpty { list = [] }
    }

    /// Reports `field` as failing, with its location found in the source.
    public mutating func fail(_ field: FieldID, _ message: String, value: Value? = nil) {
        let spec = schema[field]
        list.append(
            Finding(
                rule: rule, severity: severity, message: message,
                location: record.origin.location(ofField: spec),
                field: spec.name, value: value ?? record[field]))
    }
}

/// A step that changes one record at a time (trim, search-key, set...): it prepares its
/// change (`change`), and the change runs over the collection batch by batch. Consecutive
/// such steps on a spilled collection run as one pass (`FusedBlock`): one read and one
/// write of each batch for all of them.
public protocol RecordStep: Step {
    /// Reads what the change needs (schemas, other collections) and returns it.
    func change(_ state: RunState) throws -> RecordChange
    /// Whether preparing the change reads the step's own collection (`stable-id` collects
    /// the ids given explicitly): such a step cannot follow another in one pass, since it
    /// would read the records before the earlier steps changed them.
    static var preparesFromOwnRecords: Bool { get }
}

extension RecordStep {
    public static var preparesFromOwnRecords: Bool { false }
    /// A record step works record by record unless preparing it reads its own collection
    /// (`stable-id`), so a sharded run runs it on its share alone. A record step whose
    /// change reads another collection must say false.
    public static var worksRecordByRecord: Bool { !preparesFromOwnRecords }

    public func run(_ state: RunState) throws {
        let change = try change(state)
        try state.transformRecords(collection, change)
        if let changed = change.changed { state.noteChanged(changed.value) }
    }
}

/// What a `RecordStep` does to one record: `apply` changes it in place and returns its
/// findings (an error rejects the record, a warning is recorded and the record kept).
public struct RecordChange {
    /// The step named in findings' reports ("normalize: trim").
    let step: String
    /// Whether `apply` may run on chunks of records concurrently (it then only reads
    /// shared state; findings are still taken in record order).
    let parallel: Bool
    /// Counts the records changed, for steps whose statistics report it (`replace`).
    let changed: Counter?
    let apply: (inout Record) -> [Finding]

    init(
        step: String, parallel: Bool = false, counting changed: Counter? = nil,
        _ apply: @escaping (inout Record) -> [Finding]
    ) {
        self.step = step
        self.parallel = parallel
        self.changed = changed
        self.apply = apply
    }
}

extension RunState {
    /// Applies a change to every record of a collection, in place, batch by batch (a
    /// collection spilled to disk is read back one batch at a time).
    func transformRecords(_ collection: CollectionID, _ change: RecordChange) throws {
        try store(collection).rewrite { records in apply(change, to: &records, in: collection) }
    }

    /// Applies `body` to every record of a collection, in place; a record for which it
    /// returns error findings is rejected, warnings are recorded and the record kept.
    /// With `parallel`, `body` runs on chunks of records concurrently, so it must only
    /// read shared state; findings are taken in record order, so the result is the same
    /// for any thread count.
    func transformRecords(
        _ collection: CollectionID, step: String, parallel: Bool = false, _ body: @escaping (inout Record) -> [Finding]
    ) throws {
        try transformRecords(collection, RecordChange(step: step, parallel: parallel, body))
    }

    /// Applies a change to a run of records: rejected records leave `records`, their
    /// rejections and warnings are recorded in record order.
    func apply(_ change: RecordChange, to records: inout [Record], in collection: CollectionID) {
        let count = records.count
        let body = change.apply
        let flagged: [[(Int, [Finding])]] = records.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let buffer = buffer
            return Parallel.chunks(count, threads: change.parallel ? threads : 1) { range in
                var found: [(Int, [Finding])] = []
                for index in range {
                    let findings = body(&buffer[index])
                    if !findings.isEmpty { found.append((index, findings)) }
                }
                return found
            }
        }
        var rejected: [Bool]?
        for (index, findings) in flagged.joined() {
            if settle(records[index], findings: findings, in: collection, step: { _ in change.step }) { continue }
            if rejected == nil { rejected = [Bool](repeating: false, count: count) }
            rejected![index] = true
        }
        if let rejected { records = records.indices.filter { !rejected[$0] }.map { records[$0] } }
    }
}
