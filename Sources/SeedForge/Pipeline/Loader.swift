import Foundation
import Yams

/// Loads pipeline definitions from YAML and checks them completely before any data is
/// read: unknown keys and kinds (with the nearest valid name), wrong types, unknown
/// collections and fields, missing input files, bad output names. `lint`, `validate` and
/// `run` all come through here, so they can never disagree about what is valid.
public enum Loader {
    static let topKeys = [
        "name", "description", "sources", "steps", "outputs", "thresholds", "limits", "changes", "budgets",
    ]
    static let stepStages: [Stage] = [.validate, .normalize, .enrich, .aggregate]

    public static func load(path: String) throws -> Pipeline {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw DefinitionError(
                file: path, line: 1, column: 1,
                message:
                    "cannot read pipeline file: \(FileManager.default.fileExists(atPath: path) ? "permission denied or not a file" : "no such file")"
            )
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw DefinitionError(file: path, line: 1, column: 1, message: "pipeline file is not valid UTF-8")
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try load(yaml: text, file: path, baseDirectory: base, sha256: SHA256.hex(data))
    }

    public static func load(yaml: String, file: String, baseDirectory: String, sha256: String = "") throws -> Pipeline {
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: yaml) else {
                throw DefinitionError(file: file, line: 1, column: 1, message: "pipeline file is empty")
            }
            root = node
        } catch let error as YamlError {
            throw yamlError(error, file: file, yamlText: yaml)
        }
        let top = try ConfigNode(node: root, file: file).mapping("the pipeline")
        var collector = ErrorCollector(errors: top.unknownKeys(allowed: topKeys), fallback: top.node)
        let plan = PipelinePlan(file: file, baseDirectory: baseDirectory)
        func collect<T>(_ body: () throws -> T) -> T? { collector.attempt(body) }

        let name =
            collect { () throws -> String in
                let node = try top.require("name")
                let name = try node.string("'name'")
                guard name.range(of: "^[A-Za-z0-9][A-Za-z0-9._-]*$", options: .regularExpression) != nil else {
                    throw node.error(
                        "'name' must be letters, digits, '.', '_' or '-' (it names the output folder), found '\(name)'")
                }
                return name
            } ?? "?"
        let description = collect { try top.string("description") } ?? nil

        var sources: [SourceDefinition] = []
        var sourceNodes: [CollectionID: ConfigNode] = [:]
        if let sourcesMap = collect({ try top.require("sources").mapping("'sources'") }) {
            if sourcesMap.mapping.count == 0 {
                collector.errors.append(sourcesMap.error("'sources' declares no source"))
            }
            for (keyNode, valueNode) in sourcesMap.mapping {
                let keyConfig = ConfigNode(node: keyNode, file: file)
                guard let collection = collect({ try CollectionID(keyConfig.string("a source name")) }) else {
                    continue
                }
                sourceNodes[collection] = keyConfig
                if let source = collect({
                    try loadSource(collection, ConfigNode(node: valueNode, file: file), plan: plan)
                }) {
                    sources.append(source)
                }
            }
        }

        var steps: [PlannedStep] = []
        if let stepNodes = collect({ try top["steps"].map { try $0.list("'steps'") } ?? [] }) {
            for (index, node) in stepNodes.enumerated() {
                if let step = collect({ try loadStep(node, number: index + 1, plan: plan) }) { steps.append(step) }
            }
        }

        var outputs: [OutputDefinition] = []
        var outputNodes: [ConfigNode] = []
        if let nodes = collect({ try top.require("outputs").list("'outputs'") }) {
            var files: [String] = []
            for (index, node) in nodes.enumerated() {
                if let output = collect({ try loadOutput(node, number: index + 1, plan: plan) }) {
                    if files.contains(output.file) {
                        collector.errors.append(node.error("output file '\(output.file)' is written twice"))
                    } else if let clash = files.first(where: {
                        output.file.hasPrefix($0 + "/") || $0.hasPrefix(output.file + "/")
                    }) {
                        collector.errors.append(
                            node.error(
                                "output file '\(output.file)' and '\(clash)' cannot both exist: one would be a folder holding the other"
                            ))
                    }
                    files.append(output.file)
                    outputs.append(output)
                    outputNodes.append(node)
                }
            }
        }

        // An index must point at a pages output of its collection.
        for (output, node) in zip(outputs, outputNodes) {
            if let index = output.format as? PrefixIndexFormat,
                let problem = index.pagesOutput(in: outputs, collection: output.collection)
            {
                collector.errors.append(node.error(problem))
            }
        }

        // Nothing lost: every collection must end in an output that holds all of it (or be
        // reference data, or have been appended to another collection).
        let emitted = Set(outputs.filter(\.isComplete).map(\.collection))
            .union(plan.referenceCollections).union(plan.appendedInto.keys)
        for collection in plan.collectionOrder where !emitted.contains(collection) && collector.errors.isEmpty {
            let node = sourceNodes[collection] ?? top.node
            collector.errors.append(
                node.error(
                    "collection '\(collection)' is never written: add an entry for it under 'outputs' without 'where' (every record must end in an output, the rejects or the duplicates log)"
                ))
        }

        let thresholds =
            collect { try loadThresholds(top) }
            ?? Thresholds(maxRejects: nil, maxRejectFraction: Thresholds.defaultMaxRejectFraction)
        let limits = collect { try loadLimits(top) } ?? .defaults
        let written = plan.collectionOrder.filter { collection in
            outputs.contains { $0.collection == collection && $0.isComplete }
        }
        let changeKeys = collect { try ChangeKeys.load(top, plan: plan, written: written) } ?? [:]
        let budgets = collect { try Budgets.load(top, plan: plan, outputs: outputs, written: written) } ?? Budgets()

        if !collector.errors.isEmpty {
            // A YAML alias (`fields: *city`) repeats its anchor's node, and with it the
            // node's errors: each is reported once.
            var seen: Set<String> = []
            let errors = collector.errors.sorted { ($0.line, $0.column) < ($1.line, $1.column) }.filter {
                seen.insert($0.description).inserted
            }
            throw DefinitionErrors(errors)
        }
        // Records are made with room for the fields later steps add to their collection.
        for index in sources.indices {
            let fields = plan.schema(sources[index].collection).fields
            sources[index].mapping.capacity = fields.count
            sources[index].mapping.addedTextFields =
                fields.dropFirst(sources[index].mapping.fields.count).filter { $0.type == .string }.count
        }
        return Pipeline(
            name: name, description: description, file: file, fileSHA256: sha256, baseDirectory: baseDirectory,
            sources: sources, steps: steps,
            outputs: outputs, thresholds: thresholds, limits: limits, schemas: plan.schemas,
            collections: plan.collectionOrder,
            derivedCollections: plan.derivedCollections, referenceCollections: plan.referenceCollections,
            changeKeys: changeKeys, budgets: budgets)
    }

    static func yamlError(_ error: YamlError, file: String, yamlText: String) -> DefinitionError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return DefinitionError(file: file, line: mark.line, column: mark.column, message: "YAML syntax: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            // Yams gives the mapping's start; point at the key's second occurrence instead.
            let key = duplicates.first ?? ""
            let lines = yamlText.split(separator: "\n", omittingEmptySubsequences: false)
            var seen: [(line: Int, column: Int)] = []
            for (index, line) in lines.enumerated().dropFirst(max(0, context.mark.line - 1)) {
                let indent = line.prefix(while: { $0 == " " }).count
                let rest = line.dropFirst(indent)
                if rest.hasPrefix(key + ":") || rest.hasPrefix("- " + key + ":") || rest.hasPrefix("\"" + key + "\":") {
                    seen.append((index + 1, indent + 1))
                }
            }
            let place = seen.count >= 2 ? seen[1] : (line: context.mark.line, column: context.mark.column)
            return DefinitionError(
                file: file, line: place.line, column: place.column,
                message: "key '\(duplicates.joined(separator: "', '"))' appears twice in the same mapping")
        case .reader(let problem, let offset, _, let yaml):
            let prefix = offset.map { String(yaml.utf8.prefix($0)) ?? "" } ?? ""
            let lines = prefix.split(separator: "\n", omittingEmptySubsequences: false)
            return DefinitionError(
                file: file, line: lines.count, column: (lines.last?.unicodeScalars.count ?? 0) + 1,
                message: "YAML: \(problem)")
        default:
            return DefinitionError(file: file, line: 1, column: 1, message: "YAML: \(error)")
        }
    }

    /// Loads one source. Its collection and fields are declared even when something else
    /// about it is wrong, so one mistake gives one error, not a cascade in later steps.
    static func loadSource(
        _ collection: CollectionID, _ node: ConfigNode, plan: PipelinePlan
    ) throws -> SourceDefinition {
        let what = "source '\(collection)'"
        let config = try node.mapping(what)
        var collector = ErrorCollector(fallback: node)
        func attempt<T>(_ body: () throws -> T) -> T? { collector.attempt(body) }
        let declaredKind = (try? config.string("kind")).flatMap { name in
            Registry.sources.first { $0.spec.name == name }
        }
        let (fields, fieldErrors) =
            attempt { try (declaredKind ?? JSONSource.self).declaredFields(config, what: what) } ?? ([], [])
        collector.errors += fieldErrors
        var schema = Schema(fields: fields)
        if let idNode = config["id"] {
            schema.idField = attempt {
                try plan.fieldIn(schema, name: idNode.string("'id' of \(what)"), collection: collection, at: idNode)
            }
        }
        plan.declareSourceCollection(collection, schema: schema)
        if attempt({ try config.bool("reference") }) == true { plan.referenceCollections.insert(collection) }

        let kindType: (any SourceKind.Type)? = attempt {
            let kindNode = try config.require("kind")
            let kindName = try kindNode.string("'kind' of \(what)")
            guard let kindType = Registry.sources.first(where: { $0.spec.name == kindName }) else {
                let names = Registry.sources.map { $0.spec.name }
                throw kindNode.error(
                    "unknown source kind '\(kindName)'\(Suggestion.phrase(for: kindName, in: names)); source kinds: \(names.joined(separator: ", "))"
                )
            }
            return kindType
        }
        if let kindType { collector.errors += config.unknownKeys(allowed: kindType.spec.keys.map(\.name)) }
        let kind = kindType.flatMap { type in attempt { try type.init(config: config) } }
        let files = attempt { try resolveFiles(config, plan: plan, what: what) }
        let unknown = attempt {
            try config.choice(
                "unknown-fields", FieldMapping.UnknownFields.self, choices: FieldMapping.UnknownFields.allCases)
                ?? .ignore
        }
        guard collector.errors.isEmpty, let kindType, let kind, let files, let unknown else {
            throw DefinitionErrors(collector.errors)
        }
        return SourceDefinition(
            collection: collection, kindName: kindType.spec.name, kind: kind, files: files,
            mapping: FieldMapping(fields: schema.fields, unknownFields: unknown), root: root(of: config, plan: plan))
    }

    /// The folder a source's `path` starts from: the folder part before any glob character
    /// (`pages/*/*.html` → `pages`), or the file's own folder.
    ///
    /// It is cut from the same standardized path the files are expanded from: Foundation
    /// resolves symbolic links while it removes `..` from a path that exists (a folder) but
    /// not from one that does not (a glob), so a root standardized on its own could name a
    /// linked data folder by its target while the pages keep the link's path, and every
    /// page address under `base-url` would go wrong.
    static func root(of config: ConfigMap, plan: PipelinePlan) -> String {
        let pattern = (try? config.string("path")).flatMap { $0 } ?? ""
        var components: [String] = []
        for component in fullPath(pattern, plan: plan).split(separator: "/", omittingEmptySubsequences: false)
            .dropLast()
        {
            if component.contains(where: { "*?[".contains($0) }) { break }
            components.append(String(component))
        }
        return components.joined(separator: "/")
    }

    /// A source's `path` as an absolute, standardized path (a glob stays a glob).
    static func fullPath(_ pattern: String, plan: PipelinePlan) -> String {
        URL(
            fileURLWithPath: pattern.hasPrefix("/")
                ? pattern : (plan.baseDirectory as NSString).appendingPathComponent(pattern)
        )
        .standardizedFileURL.path
    }

    /// Resolves `path:` against the pipeline's folder: a file, or a glob in sorted order.
    static func resolveFiles(_ config: ConfigMap, plan: PipelinePlan, what: String) throws -> [String] {
        let node = try config.require("path")
        let pattern = try node.string("'path' of \(what)")
        let full = fullPath(pattern, plan: plan)
        if pattern.contains(where: { "*?[".contains($0) }) {
            let matches = Glob.expand(full).map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            guard !matches.isEmpty else {
                throw node.error("no file matches '\(pattern)' (paths are relative to the folder of \(plan.file))")
            }
            return matches
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory) else {
            throw node.error(
                "input file '\(pattern)' does not exist (looked for \(Paths.display(full)); paths are relative to the folder of \(plan.file))"
            )
        }
        guard !isDirectory.boolValue else {
            throw node.error("'\(pattern)' is a folder; give a file or a glob such as '\(pattern)/*.json'")
        }
        return [full]
    }

    static func loadStep(_ node: ConfigNode, number: Int, plan: PipelinePlan) throws -> PlannedStep {
        let map = try node.mapping("step \(number)")
        let stageKeys = map.keys.filter { key in stepStages.contains { $0.rawValue == key } }
        guard stageKeys.count == 1, let stage = Stage(rawValue: stageKeys[0]) else {
            if stageKeys.count > 1 {
                throw node.error(
                    "step \(number) names several stages (\(stageKeys.joined(separator: ", "))); write one step per entry"
                )
            }
            var hint = ""
            for key in map.keys {
                if let guess = Suggestion.nearest(to: key, in: stepStages.map(\.rawValue)) {
                    hint = "; did you mean '\(guess)' instead of '\(key)'?"
                }
            }
            throw node.error(
                "step \(number) must start with one of validate:, normalize:, enrich:, aggregate: naming its kind (e.g. `- validate: range`)\(hint)"
            )
        }
        let kindNode = map[stage.rawValue]!
        let kindName = try kindNode.string("the kind of step \(number)")
        let what = "step \(number) (\(stage.rawValue): \(kindName))"
        let config = ConfigMap(mapping: map.mapping, node: node, what: what)
        // A derived collection (statistics) holds no source records: nothing to point a
        // finding at, nothing to reject. Only aggregate steps (sort, further statistics) apply.
        if stage != .aggregate, let collectionNode = config["collection"],
            let name = try? collectionNode.string("'collection'"),
            plan.derivedCollections.contains(CollectionID(name))
        {
            throw collectionNode.error(
                "'\(name)' is made by group-stats from other records, so \(stage.rawValue) steps cannot apply to it (a finding would point at no source line); check or fix the records it is computed from"
            )
        }
        // `from` names a collection only in enrich steps (elsewhere it names fields).
        for key in stage == .enrich ? ["collection", "from"] : ["collection"] {
            if let node = config[key], let name = try? node.string("'\(key)'"),
                let target = plan.appendedInto[CollectionID(name)]
            {
                throw node.error(
                    "the records of '\(name)' were appended to '\(target)' by an earlier step, so '\(name)' is empty here; name '\(target)'"
                )
            }
        }
        if stage == .validate {
            guard let rule = Registry.rules.first(where: { $0.spec.name == kindName }) else {
                throw unknownKind(kindName, stage: stage, at: kindNode)
            }
            var errors = config.unknownKeys(allowed: [stage.rawValue] + rule.spec.keys.map(\.name))
            do {
                let step = try ValidateStep(kind: rule, config: config, plan: plan)
                if errors.isEmpty { return .validate(step) }
            } catch let error as DefinitionError {
                errors.append(error)
            }
            throw DefinitionErrors(errors)
        }
        guard let kind = Registry.steps(of: stage).first(where: { $0.spec.name == kindName }) else {
            throw unknownKind(kindName, stage: stage, at: kindNode)
        }
        var errors = config.unknownKeys(allowed: [stage.rawValue] + kind.spec.keys.map(\.name))
        do {
            let step = try kind.init(config: config, plan: plan)
            if errors.isEmpty { return .step(step, stage: stage, kind: kindName) }
        } catch let error as DefinitionError {
            errors.append(error)
            declareWhatAFailedStepAdds(config, kind: kind, plan: plan)
        }
        throw DefinitionErrors(errors)
    }

    /// A step that failed to load still declares the field it adds (`into`, as `any`), so
    /// one mistake gives one error: a later step or output naming that field is not also
    /// reported as naming an unknown field (which would read as the cause when it sorts
    /// first). Steps whose `into` names a collection (`append`, `unnest`) declare nothing.
    static func declareWhatAFailedStepAdds(_ config: ConfigMap, kind: any Step.Type, plan: PipelinePlan) {
        guard kind != Append.self, kind != Unnest.self, let intoNode = config["into"],
            let into = try? intoNode.string("'into'"), let collectionNode = config["collection"],
            let collection = try? CollectionID(collectionNode.string("'collection'")), plan.schemas[collection] != nil,
            plan.schema(collection).id(of: into) == nil
        else { return }
        _ = try? plan.addField(into, type: .any, to: collection, at: intoNode)
    }

    static func unknownKind(_ name: String, stage: Stage, at node: ConfigNode) -> DefinitionError {
        let names = Registry.names(of: stage)
        for other in stepStages where other != stage && Registry.names(of: other).contains(name) {
            return node.error(
                "'\(name)' is a \(other.rawValue) kind, not a \(stage.rawValue) kind: write `\(other.rawValue): \(name)`"
            )
        }
        return node.error(
            "unknown \(stage.rawValue) kind '\(name)'\(Suggestion.phrase(for: name, in: names)); \(stage.rawValue) kinds: \(names.joined(separator: ", "))"
        )
    }

    static func loadOutput(_ node: ConfigNode, number: Int, plan: PipelinePlan) throws -> OutputDefinition {
        let map = try node.mapping("output \(number)")
        let fileNode = try map.require("file")
        let file = try fileNode.string("'file' of output \(number)")
        let what = "output \(number) (\(file))"
        let config = ConfigMap(mapping: map.mapping, node: node, what: what)
        let components = file.split(separator: "/", omittingEmptySubsequences: false)
        if file.hasPrefix("/") || components.contains("..") || components.contains("") || components.contains(".") {
            throw fileNode.error(
                "'file' must be a relative name inside the dataset folder, without '..', found '\(file)'")
        }
        if SideOutputs.reserved.contains(file) {
            throw fileNode.error("'\(file)' is written by seedforge itself; choose another name")
        }
        let formatName: String
        if let formatNode = map["format"] {
            formatName = try formatNode.string("'format' of \(what)")
        } else {
            let ext = (file as NSString).pathExtension.lowercased()
            guard let match = Registry.formats.first(where: { $0.extensions.contains(ext) }) else {
                throw fileNode.error(
                    "cannot tell the format of '\(file)' from its extension; add `format:` (\(Registry.formats.map { $0.spec.name }.joined(separator: ", ")))"
                )
            }
            formatName = match.spec.name
        }
        guard let formatType = Registry.formats.first(where: { $0.spec.name == formatName }) else {
            let names = Registry.formats.map { $0.spec.name }
            throw (map["format"] ?? fileNode).error(
                "unknown output format '\(formatName)'\(Suggestion.phrase(for: formatName, in: names)); formats: \(names.joined(separator: ", "))"
            )
        }
        // `where` is refused below with its own message where the format does not take it.
        let keys = formatType.spec.keys.map(\.name)
        let errors = config.unknownKeys(allowed: keys.contains("where") ? keys : keys + ["where"])
        if let whereNode = config["where"], !formatType.spec.keys.contains(where: { $0.name == "where" }) {
            throw whereNode.error(
                "'where' cannot filter a \(formatName) output: its pages and index cover the whole collection; filter with a step before it, or write the subset as json, ndjson, csv or sqlite"
            )
        }
        let collection = try plan.collection(config)
        if let target = plan.appendedInto[collection] {
            throw config["collection"]!.error(
                "the records of '\(collection)' are appended to '\(target)' by a step, so '\(collection)' is empty when outputs are written; write '\(target)'"
            )
        }
        let (fields, layout) = try FieldLayout.load(
            config, collection: collection, plan: plan, format: formatName,
            structured: formatType is any StructuredFormat.Type)
        var format: any OutputFormat = try formatType.init(config: config, plan: plan, collection: collection)
        if var structured = format as? any StructuredFormat {
            structured.layout = layout
            format = structured
        }
        let filter =
            try config["where"].map { try OutputFilter($0, collection: collection, plan: plan, what: what) } ?? .none
        let fixed =
            try config["fixed-decimals"].map { try FixedDecimals($0, collection: collection, plan: plan, what: what) }
            ?? .none
        if !errors.isEmpty { throw DefinitionErrors(errors) }
        var output = OutputDefinition(
            file: file, collection: collection, formatName: formatName, format: format, fields: fields, layout: layout,
            filter: filter)
        output.fixedDecimals = fixed
        return output
    }

    static func loadThresholds(_ top: ConfigMap) throws -> Thresholds {
        var thresholds = Thresholds(maxRejects: nil, maxRejectFraction: Thresholds.defaultMaxRejectFraction)
        guard let node = top["thresholds"] else { return thresholds }
        let map = try node.mapping("'thresholds'")
        let errors = map.unknownKeys(allowed: RejectLimits.keys)
        if !errors.isEmpty { throw DefinitionErrors(errors) }
        let limits = try RejectLimits(map)
        thresholds.maxRejects = limits.maxRejects
        if let fraction = limits.maxRejectFraction { thresholds.maxRejectFraction = fraction }
        return thresholds
    }

    /// `limits:`: sizes such as `512MiB`, `2 GiB` or `1000000` (bytes); every key optional.
    static func loadLimits(_ top: ConfigMap) throws -> InputLimits {
        var limits = InputLimits.defaults
        guard let node = top["limits"] else { return limits }
        let map = try node.mapping("'limits'")
        var errors = map.unknownKeys(allowed: InputLimits.keys)
        func size(_ key: String) -> Int? {
            guard let node = map[key] else { return nil }
            let text = (try? node.string("'\(key)'")) ?? ""
            guard let bytes = ByteSize.parse(text) else {
                errors.append(
                    node.error(
                        "'\(key)' in 'limits' must be a size such as 16MiB, 2GiB or 1000000 (bytes), found \(node.typeDescription)"
                    ))
                return nil
            }
            guard bytes >= 1 else {
                errors.append(node.error("'\(key)' in 'limits' must be at least 1 byte"))
                return nil
            }
            return bytes
        }
        if let bytes = size("max-file-bytes") { limits.maxFileBytes = bytes }
        // A record's values are held with 32-bit offsets (`PackedRow`): a record, and so a
        // value, is at most 1 GiB, far beyond any real seed record.
        func record(_ key: String) -> Int? {
            guard let bytes = size(key) else { return nil }
            guard bytes <= 1 << 30 else {
                errors.append(
                    map[key]!.error(
                        "'\(key)' in 'limits' is at most 1GiB (one record's values are held in memory whole)"))
                return nil
            }
            return bytes
        }
        if let bytes = record("max-value-bytes") { limits.maxValueBytes = bytes }
        if let bytes = record("max-record-bytes") { limits.maxRecordBytes = bytes }
        if let bytes = size("max-memory") { limits.maxMemory = bytes }
        if !errors.isEmpty { throw DefinitionErrors(errors) }
        return limits
    }
}

extension PipelinePlan {
    func fieldIn(_ schema: Schema, name: String, collection: CollectionID, at node: ConfigNode) throws -> FieldID {
        guard let id = schema.id(of: name) else {
            throw node.error(
                "'id' names unknown field '\(name)' of source '\(collection)'\(Suggestion.phrase(for: name, in: schema.names))"
            )
        }
        return id
    }
}
