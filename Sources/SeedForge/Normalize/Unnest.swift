/// `normalize: unnest`: turns an array field into a collection of its own, one record per
/// element, so nested reviews (`[{restaurantName, ratings: [{stars, comment}]}]`) can feed
/// `rating-summary`. Each element is typed by `fields` as a source's records are, carries
/// the parent fields listed under `parent-fields` (the key it belongs to) and, with
/// `position-field`, its place in the array; findings on it point at the element in its
/// file (`/3/ratings/1/stars`). An element that does not fit is rejected in the new
/// collection; the parent record keeps its array.
public struct Unnest: Step {
    public static var worksRecordByRecord: Bool { true }
    public static let spec = KindSpec(
        stage: .normalize, name: "unnest",
        summary: "A new collection from an array field: one record per element, with its parent's key.",
        keys: [
            CommonKeys.collection,
            KeySpec("field", required: true, "the array field whose elements become records"),
            KeySpec(
                "into", required: true, "the name of the new collection (steps and outputs use it like a source's)"),
            KeySpec(
                "fields",
                "the fields of each element (an object), as a source declares them: `name: type` or `name: {type: T, from: /pointer}` (the pointer inside the element)"
            ),
            KeySpec(
                "value-field",
                "instead of 'fields', for lists of plain values (tags, ratings [4, 5]): the field each element itself goes into, `tag` (any type) or `{tag: string}`"
            ),
            KeySpec(
                "parent-fields",
                "fields of the parent record copied into each element record (e.g. [id] or [restaurantName]): the key an element belongs to"
            ),
            KeySpec("position-field", "a field for the element's position in its array (0 for the first)"),
            KeySpec("id", "the field that identifies an element record (shown in rejects and the duplicates log)"),
            KeySpec(
                "reference",
                "true: the new collection is only looked up by later steps (the reviews a rating-summary reads) and needs no output; its rejects are still reported and counted"
            ),
        ],
        details: #"""
            So reviews nested in their restaurant (`[{restaurantName, lat, long, ratings: [{stars,
            comment}]}]`) can feed [`rating-summary`](#enrich). For a list of plain values (a quote's
            tags, bare ratings `[4, 5]`), `value-field` takes each element whole instead of `fields`;
            an element of another type is rejected with rule `type` at its place (`/0/ratings/1`). An
            element whose fields do not fit their types (or that is not an object) is rejected in the
            new collection, and the parent keeps its array; findings on elements point at them in
            their file, `restaurants.json:29:17` at `/2/ratings/1/stars`. The manifest counts the
            elements as `received` by the new collection. `Fixtures/restaurants/restaurants.yml`
            (with its `restaurants.test.yml`) unnests ratings and feeds them to `rating-summary`.
            """#,
        example: """
            - normalize: unnest
              collection: restaurants
              field: ratings
              into: reviews
              parent-fields: [restaurantName]
              position-field: position
              reference: true
              fields:
                stars: number
                comment: string
            """)

    public let collection: CollectionID
    let field: FieldID
    let into: CollectionID
    let mapping: FieldMapping
    /// Parent fields copied, and their place in the element record (after the element's fields).
    let parentFields: [FieldID]
    let positionField: Bool
    /// Whether each element goes whole into one field (`value-field`), not through `fields`.
    let valueField: Bool
    /// The array field as the parent collection declares it, to find each element in its file.
    let arrayField: FieldSpec

    public var made: CollectionID? { into }

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        field = try plan.field(config, key: "field", in: collection)
        let parent = plan.schema(collection)
        guard [.array, .any].contains(parent[field].type) else {
            throw config["field"]!.error(
                "'\(parent[field].name)' is \(parent[field].type.rawValue); unnest takes an array field (declare it as array)"
            )
        }
        arrayField = parent[field]
        let intoNode = try config.require("into")
        into = try CollectionID(intoNode.string("'into'"))
        if plan.schema(into).fields.isEmpty == false || plan.collectionOrder.contains(into) {
            throw intoNode.error("a collection '\(into)' exists already; 'into' names a new collection")
        }
        var fields: [FieldSpec]
        if let node = config["value-field"] {
            if config["fields"] != nil {
                throw node.error("'value-field' takes each element whole; leave out 'fields' (or 'value-field')")
            }
            if case .mapping = node.node {
                let pairs = try node.mapping("'value-field'").mapping
                guard pairs.count == 1, let (nameNode, typeNode) = pairs.first else {
                    throw node.error("'value-field' names one field: `tag` or `{tag: string}`")
                }
                let name = try ConfigNode(node: nameNode, file: config.file).string("the value field's name")
                let typeName = try ConfigNode(node: typeNode, file: config.file).string("the value field's type")
                guard let type = FieldType(rawValue: typeName) else {
                    let names = FieldType.allCases.map(\.rawValue)
                    throw node.error(
                        "unknown type '\(typeName)'\(Suggestion.phrase(for: typeName, in: names)); types are: \(names.joined(separator: ", "))"
                    )
                }
                fields = [FieldSpec(name: name, type: type, sourcePath: FieldPath(components: []))]
            } else {
                fields = [
                    FieldSpec(name: try node.string("'value-field'"), type: .any, sourcePath: FieldPath(components: []))
                ]
            }
            valueField = true
        } else {
            guard config["fields"] != nil else {
                throw config.error(
                    "\(config.what) needs 'fields' (the fields of each element) or, for a list of plain values, 'value-field'"
                )
            }
            let (loaded, errors) = try FieldMapping.load(config, what: config.what)
            if let first = errors.first { throw first }
            fields = loaded
            valueField = false
        }
        for spec in fields {
            if let problem = spec.sourcePath?.wildcardProblem { throw config["fields"]!.error(problem) }
        }
        var schema = Schema(fields: fields)
        parentFields =
            try config["parent-fields"] == nil ? [] : plan.fields(config, key: "parent-fields", in: collection)
        for id in parentFields {
            let spec = parent[id]
            guard schema.id(of: spec.name) == nil else {
                throw config["parent-fields"]!.error(
                    "'\(spec.name)' is a field of each element too; rename one (an element field: name: {type: T, from: /\(spec.name)})"
                )
            }
            schema.add(FieldSpec(name: spec.name, type: spec.type, sourcePath: nil))
        }
        if let node = config["position-field"] {
            let name = try node.string("'position-field'")
            guard schema.id(of: name) == nil else {
                throw node.error("'\(name)' is a field of each element already; choose another name")
            }
            schema.add(FieldSpec(name: name, type: .integer, sourcePath: nil))
            positionField = true
        } else {
            positionField = false
        }
        if let idNode = config["id"] {
            schema.idField = try plan.fieldIn(schema, name: idNode.string("'id'"), collection: into, at: idNode)
        }
        mapping = FieldMapping(fields: fields, unknownFields: .ignore)
        plan.declareCollection(into, schema: schema)
        if try config.bool("reference") == true { plan.referenceCollections.insert(into) }
    }

    public func run(_ state: RunState) throws {
        // Parent by parent (a spilled collection is read a batch at a time); the new
        // collection grows, and spills, as its records are made.
        state.setRecords(into, [])
        let made = state.store(into)
        var read = 0
        let step = "normalize: unnest"
        try state.forEachRecord(collection) { parent in
            guard case .array(let elements) = parent[field], !elements.isEmpty else { return }
            let offsets = elementOffsets(of: parent, count: elements.count)
            let copied = parentFields.map { parent[$0] }
            for (position, element) in elements.enumerated() {
                read += 1
                let origin =
                    offsets.map { Origin(element: $0[position], of: parent.origin) } ?? parent.origin
                var (record, findings) =
                    valueField ? mapValue(element, origin: origin) : mapping.map(element, origin: origin)
                guard record != nil else {
                    _ = state.settle(nil, findings: findings, in: into, step: { _ in step })
                    continue
                }
                // The element's values, then the parent's and the position, packed again
                // as one row. (Rows get no room for fields later steps add to `into`: its
                // schema is not complete when this step is loaded.)
                var values = record!.values
                values += copied
                if positionField { values.append(.int(Int64(position))) }
                record = Record(values: values, origin: origin)
                if findings.isEmpty || state.settle(record, findings: findings, in: into, step: { _ in step }) {
                    made.append(record!)
                }
            }
        }
        state.appendedIn[into, default: 0] += read
    }

    /// An element taken whole into the value field: a `type` finding when it does not fit.
    func mapValue(_ element: Value, origin: Origin) -> (record: Record?, findings: [Finding]) {
        let field = mapping.fields[0]
        if let converted = FieldMapping.convert(element, to: field.type) {
            return (Record(values: [converted], origin: origin), [])
        }
        let finding = Finding(
            rule: .type,
            message:
                "field '\(field.name)' must be \(FieldMapping.article(field.type)), found \(element.typeName) \(RuleFields.describe(element))",
            location: origin.location, field: field.name, value: element)
        return (Record(values: [element], origin: origin), [finding])
    }

    /// The byte offset of each element of the parent's array in its source file, when the
    /// array is there as written (a JSON source's field); nil otherwise (a computed array).
    func elementOffsets(of parent: Record, count: Int) -> [Int]? {
        guard let path = parent.origin.sourcePath(of: arrayField), parent.origin.source.layout == nil,
            let start = parent.origin.source.offset(of: path, inValueAt: parent.origin.offset)
        else { return nil }
        return parent.origin.source.bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer, start: start)
            guard reader.peek() == UInt8(ascii: "[") else { return nil }
            var offsets: [Int] = []
            do {
                reader.position += 1
                var first = true
                while try reader.nextArrayElement(first: first) {
                    first = false
                    reader.skipWhitespace()
                    offsets.append(reader.position)
                    try reader.skipValue()
                }
            } catch {
                return nil
            }
            return offsets.count == count ? offsets : nil
        }
    }
}
