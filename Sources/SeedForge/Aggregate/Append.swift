/// `aggregate: append`: moves every record of one collection into another, so records
/// from two sources (the app's own places and places found through an API) meet before
/// deduplication and are written together. Fields are matched by name: each field of the
/// target takes the source's field of that name (null where the source has none). A
/// source field the target lacks would be lost, so it is a definition error unless listed
/// under `drop`. Types must agree (an integer field may go into a number field; any field
/// into an `any` field). Records keep their provenance: a later finding on an appended
/// record points at its own file and at the path its own source declared. The source
/// collection is empty afterwards; the manifest counts the records as appended.
public struct Append: Step {
    public static let spec = KindSpec(
        stage: .aggregate, name: "append",
        summary:
            "Move every record of a collection into another, fields matched by name (a second source of the same records).",
        keys: [
            CommonKeys.collection,
            KeySpec(
                "into", required: true, "the collection that receives the records; read after its own, in input order"),
            KeySpec(
                "drop",
                "fields of the collection that the target has no place for, dropped on purpose (any other such field is an error)"
            ),
        ],
        details: #"""
            Two sources of the same things (the app's places and places found through an API) meet
            before `dedupe`. Fields match by name; target fields the collection lacks are null; a
            collection field the target lacks is a definition error unless dropped, and so are types
            that differ (an integer field may go into a number field, anything into an `any` field).
            Records keep their provenance: a later finding on an appended record names its own file
            and the JSON Pointer its own source declared (`/results/3/geometry/location/lat`). The
            collection is empty afterwards: later steps and outputs naming it are definition errors,
            and the manifest counts its records as `appended` (and `received` in the target).
            """#,
        example: """
            - aggregate: append
              collection: nearby
              into: places
              drop: [types, publicRating, ratingsCount]
            """)

    public let collection: CollectionID
    let into: CollectionID
    /// For each field of the target (at this step), the source field it takes, if any.
    let sources: [FieldID?]

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        into = try plan.collection(config, key: "into")
        let intoNode = config["into"]!
        guard into != collection else {
            throw intoNode.error("'into' names the collection itself; give the collection that receives the records")
        }
        if let onward = plan.appendedInto[into] {
            throw intoNode.error(
                "the records of '\(into)' were appended to '\(onward)' by an earlier step, so records appended to '\(into)' now would never be written; append into '\(onward)'"
            )
        }
        if plan.derivedCollections.contains(into) || plan.derivedCollections.contains(collection) {
            throw intoNode.error("append moves source records; statistics made by group-stats cannot take part")
        }
        if plan.referenceCollections.contains(collection) != plan.referenceCollections.contains(into) {
            throw intoNode.error("'\(collection)' and '\(into)' must both be reference data or both be written")
        }
        let from = plan.schema(collection)
        let target = plan.schema(into)
        let dropped =
            try config["drop"] == nil ? [] : plan.fields(config, key: "drop", in: collection).map { from[$0].name }
        let unplaced = from.names.filter { target.id(of: $0) == nil && !dropped.contains($0) }
        if !unplaced.isEmpty {
            throw intoNode.error(
                "'\(into)' has no field \(unplaced.map { "'\($0)'" }.joined(separator: ", ")) of '\(collection)'; add it to '\(into)' (e.g. with normalize: set), rename it with a step, or list it under 'drop' to leave it out on purpose"
            )
        }
        if let extra = dropped.first(where: { target.id(of: $0) != nil }) {
            throw config["drop"]!.error(
                "'\(extra)' is a field of '\(into)' too, so it is appended, not dropped; take it out of 'drop'")
        }
        var sources: [FieldID?] = []
        for field in target.fields {
            guard let id = from.id(of: field.name) else {
                sources.append(nil)
                continue
            }
            let type = from[id].type
            let fits = type == field.type || field.type == .any || (type == .integer && field.type == .number)
            guard fits else {
                throw intoNode.error(
                    "field '\(field.name)' is \(type.rawValue) in '\(collection)' but \(field.type.rawValue) in '\(into)'; declare it with the same type in both (an integer may go into a number field)"
                )
            }
            sources.append(id)
        }
        self.sources = sources
        // Locations of moved records find their values through their own files' paths,
        // for the fields moved with them only (a dropped name, computed later, must not
        // resolve): decided here, once, not by changing the records' sources in a run.
        plan.carry(collection, into: into)
        plan.appendedInto[collection] = into
    }

    public func run(_ state: RunState) throws {
        // Batch by batch: neither collection is held whole when spilled.
        let target = state.store(into)
        var moved = 0
        try state.forEachRecord(collection) { record in
            target.append(Record(values: sources.map { $0.map { record[$0] } ?? .null }, origin: record.origin))
            moved += 1
        }
        state.setRecords(collection, [])
        state.appendedOut[collection, default: 0] += moved
        state.appendedIn[into, default: 0] += moved
    }
}
