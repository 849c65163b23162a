import Foundation

/// `budgets:` of a pipeline: how much a new dataset may differ from the one it replaces
/// before a person has to look. Keyed by a collection the dataset holds (its record count
/// and changes) or by an output file (its size):
///
///     budgets:
///       cities: {min-records: 20, max-removed-fraction: 0.1, max-changed-fraction: 0.25}
///       cities.json: {max-bytes: 30MiB}
///
/// A run over any budget fails (exit 1), leaves the previous dataset as it was and keeps
/// the new one aside for inspection; `--accept-changes` releases it anyway.
public struct Budgets: Sendable {
    public struct CollectionBudget: Sendable {
        public let collection: String
        public var minRecords: Int?
        public var maxRemoved: Int?
        public var maxRemovedFraction: Double?
        public var maxAddedFraction: Double?
        public var maxChangedFraction: Double?
    }

    public struct OutputBudget: Sendable {
        public let file: String
        public let maxBytes: Int
    }

    public var collections: [CollectionBudget] = []
    public var outputs: [OutputBudget] = []

    public init() {}

    public var isEmpty: Bool { collections.isEmpty && outputs.isEmpty }

    static let collectionKeys = [
        "min-records", "max-removed", "max-removed-fraction", "max-added-fraction", "max-changed-fraction",
    ]
    static let outputKeys = ["max-bytes"]

    // MARK: - Loading

    /// Reads `budgets:`. Names are the collections the dataset holds and its output files;
    /// each takes its own keys.
    static func load(
        _ top: ConfigMap, plan: PipelinePlan, outputs: [OutputDefinition], written: [CollectionID]
    ) throws
        -> Budgets
    {
        var budgets = Budgets()
        guard let node = top["budgets"] else { return budgets }
        let map = try node.mapping("'budgets'")
        let files = outputs.map(\.file)
        var errors: [DefinitionError] = []
        for (keyNode, valueNode) in map.mapping {
            let nameNode = ConfigNode(node: keyNode, file: map.file)
            let value = ConfigNode(node: valueNode, file: map.file)
            do {
                let name = try nameNode.string("a name under 'budgets'")
                let collection = CollectionID(name)
                if written.contains(collection) && files.contains(name) {
                    throw nameNode.error(
                        "'\(name)' under 'budgets' names both a collection and an output file; rename one of them")
                }
                if written.contains(collection) {
                    let config = try value.mapping("budgets of collection '\(name)'")
                    let unknown = config.unknownKeys(allowed: collectionKeys)
                    if !unknown.isEmpty { throw DefinitionErrors(unknown) }
                    budgets.collections.append(try collectionBudget(name, config))
                } else if files.contains(name) {
                    let config = try value.mapping("budgets of output '\(name)'")
                    let unknown = config.unknownKeys(allowed: outputKeys)
                    if !unknown.isEmpty { throw DefinitionErrors(unknown) }
                    let sizeNode = try config.require("max-bytes")
                    guard let bytes = ByteSize.parse((try? sizeNode.string("'max-bytes'")) ?? ""), bytes >= 1 else {
                        throw sizeNode.error(
                            "'max-bytes' of output '\(name)' must be a size such as 30MiB, 2GiB or 1000000 (bytes), found \(sizeNode.typeDescription)"
                        )
                    }
                    budgets.outputs.append(OutputBudget(file: name, maxBytes: bytes))
                } else if plan.schemas[collection] != nil {
                    throw nameNode.error(
                        "collection '\(name)' is not written into the dataset (reference data, or appended to another collection): budgets apply to the collections an output writes whole"
                    )
                } else {
                    let names = written.map(\.name) + files
                    throw nameNode.error(
                        "'\(name)' under 'budgets' is neither a collection of the dataset nor an output file\(Suggestion.phrase(for: name, in: names)); collections: \(written.map(\.name).joined(separator: ", ")); outputs: \(files.joined(separator: ", "))"
                    )
                }
            } catch let error as DefinitionError {
                errors.append(error)
            } catch let list as DefinitionErrors {
                errors += list.errors
            }
        }
        if !errors.isEmpty { throw DefinitionErrors(errors) }
        return budgets
    }

    static func collectionBudget(_ collection: String, _ config: ConfigMap) throws -> CollectionBudget {
        var budget = CollectionBudget(collection: collection)
        var errors: [DefinitionError] = []
        func count(_ key: String) -> Int? {
            guard let node = config[key] else { return nil }
            guard let value = try? node.int("'\(key)'"), value >= 0 else {
                errors.append(
                    node.error(
                        "'\(key)' of '\(collection)' must be a whole number, 0 or more, found \(node.typeDescription)"))
                return nil
            }
            return value
        }
        /// A fraction: at most 1 (`upTo: 1`), or any size (`nil`).
        func fraction(_ key: String, upTo maximum: Double?) -> Double? {
            guard let node = config[key] else { return nil }
            guard let value = try? node.number("'\(key)'"), value >= 0, value <= (maximum ?? .infinity) else {
                let range = maximum == nil ? "0 or more" : "between 0 and 1"
                errors.append(
                    node.error("'\(key)' of '\(collection)' must be a fraction \(range), found \(node.typeDescription)")
                )
                return nil
            }
            return value
        }
        budget.minRecords = count("min-records")
        budget.maxRemoved = count("max-removed")
        budget.maxRemovedFraction = fraction("max-removed-fraction", upTo: 1)
        // More records than before is possible: 1 allows doubling.
        budget.maxAddedFraction = fraction("max-added-fraction", upTo: nil)
        budget.maxChangedFraction = fraction("max-changed-fraction", upTo: 1)
        if !errors.isEmpty { throw DefinitionErrors(errors) }
        return budget
    }

    // MARK: - Checking

    /// `1 record`, `12 records`, `1 previous record`.
    static func records(_ count: Int, _ adjective: String? = nil) -> String {
        "\(count) \(adjective.map { "\($0) " } ?? "")record\(count == 1 ? "" : "s")"
    }

    /// Checks every budget against the new dataset: its record counts, its changes since
    /// the previous one, and its outputs' sizes. A change budget of a collection that was
    /// not compared (a first run, no key) cannot be checked, and says so.
    func check(accounting: [CollectionAccount], changes: Changes, outputBytes: [String: Int]) -> [BudgetCheck] {
        var checks: [BudgetCheck] = []
        for budget in collections {
            let emitted = accounting.first { $0.collection.name == budget.collection }?.emitted ?? 0
            if let minimum = budget.minRecords {
                checks.append(
                    BudgetCheck(
                        budget: "min-records", of: budget.collection, limit: .int(Int64(minimum)),
                        value: .int(Int64(emitted)), exceeded: emitted < minimum,
                        detail: "\(Self.records(emitted)) in the new dataset, at least \(minimum) wanted"))
            }
            let change = changes.collection(budget.collection)
            func changeCheck(_ name: String, limit: Value, measure: (CollectionChanges) -> (Value, Bool, String)) {
                guard let change, change.compared else {
                    checks.append(
                        BudgetCheck(
                            budget: name, of: budget.collection, limit: limit, value: nil, exceeded: false,
                            detail: "not checked: \(change?.notCompared ?? "not compared")"))
                    return
                }
                let (value, exceeded, detail) = measure(change)
                checks.append(
                    BudgetCheck(
                        budget: name, of: budget.collection, limit: limit, value: value, exceeded: exceeded,
                        detail: detail))
            }
            /// A count as a fraction of the previous dataset's records (an empty previous
            /// collection: any count is over any fraction).
            func fraction(
                _ count: Int, of change: CollectionChanges, _ maximum: Double, _ what: String
            )
                -> (Value, Bool, String)
            {
                let detail = "\(count) of \(Self.records(change.previous, "previous")) \(what)"
                guard change.previous > 0 else { return (.null, count > 0, detail) }
                let value = Double(count) / Double(change.previous)
                return (.double(value), value > maximum, detail)
            }
            if let maximum = budget.maxRemoved {
                changeCheck("max-removed", limit: .int(Int64(maximum))) {
                    (.int(Int64($0.removed)), $0.removed > maximum, "\(Self.records($0.removed)) removed")
                }
            }
            if let maximum = budget.maxRemovedFraction {
                changeCheck("max-removed-fraction", limit: .double(maximum)) {
                    fraction($0.removed, of: $0, maximum, "removed")
                }
            }
            if let maximum = budget.maxAddedFraction {
                changeCheck("max-added-fraction", limit: .double(maximum)) {
                    fraction($0.added, of: $0, maximum, "added")
                }
            }
            if let maximum = budget.maxChangedFraction {
                changeCheck("max-changed-fraction", limit: .double(maximum)) {
                    fraction($0.changed, of: $0, maximum, "changed")
                }
            }
        }
        for budget in outputs {
            let bytes = outputBytes[budget.file] ?? 0
            checks.append(
                BudgetCheck(
                    budget: "max-bytes", of: budget.file, limit: .int(Int64(budget.maxBytes)),
                    value: .int(Int64(bytes)), exceeded: bytes > budget.maxBytes,
                    detail: "\(bytes) bytes written, at most \(ByteSize.format(budget.maxBytes))"))
        }
        return checks
    }
}

/// One budget checked against a new dataset.
public struct BudgetCheck: Sendable {
    /// The budget's key (`max-removed-fraction`).
    public let budget: String
    /// The collection or output file it belongs to.
    public let of: String
    public let limit: Value
    /// What the new dataset measured; nil when it could not be checked.
    public let value: Value?
    public let exceeded: Bool
    /// The measure in words (`12 of 24 previous records removed`), or why it was not checked.
    public let detail: String

    public var checked: Bool { value != nil || exceeded }

    /// `max-removed-fraction of cities: limit 0.1, value 0.5 (12 of 24 previous records removed)`.
    public var description: String {
        let shown = value.map(Self.show) ?? "none"
        return "\(budget) of \(of): limit \(Self.show(limit)), value \(shown) (\(detail))"
    }

    static func show(_ value: Value) -> String {
        switch value {
        case .double(let double): return String(format: "%.4g", double)
        case .null: return "none"
        default: return JSONWriter.compact(value)
        }
    }

    var manifestValue: Value {
        .object(
            JSONObject([
                ("budget", .string(budget)), ("of", .string(of)), ("limit", limit), ("value", value ?? .null),
                ("exceeded", .bool(exceeded)), ("detail", .string(detail)),
            ]))
    }
}

/// A new dataset over its budgets: the run fails (exit 1), the previous dataset stays as it
/// was, and the new one is kept aside for inspection.
public struct BudgetError: ExitCoded, Sendable {
    public let dataset: String
    public let exceeded: [BudgetCheck]
    /// Where the new dataset was kept (`OUT/.NAME.rejected`), as shown to users.
    public let keptAt: String
    public var exitStatus: ExitStatus { .dataFailed }
    public var description: String {
        "\(dataset): over budget, previous dataset left unchanged; the new one is in \(keptAt) (release it with --accept-changes):\n"
            + exceeded.map { "  - \($0.description)" }.joined(separator: "\n")
    }
}
