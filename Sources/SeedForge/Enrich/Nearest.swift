/// `enrich: nearest`: for every record with coordinates, the nearest record of another
/// collection on the globe (great-circle distance), found through a `SphereIndex` built
/// once; copies the named fields of that record and adds the distance in km. A record
/// farther than `max-km` from every candidate gets nulls: it has no nearest city, rather
/// than one a continent away. A record without usable coordinates (missing, not numbers,
/// latitude outside ±90 or longitude outside ±180) gets nulls and a `coordinates` warning;
/// candidates without usable coordinates are left out of the index.
public struct Nearest: Step {
    public static let spec = KindSpec(
        stage: .enrich, name: "nearest",
        summary:
            "Copy fields of the nearest record of another collection (great-circle distance, k-d tree), with the distance in km.",
        keys: [
            CommonKeys.collection,
            KeySpec("latitude", required: true, "the collection's latitude field (degrees)"),
            KeySpec("longitude", required: true, "the collection's longitude field (degrees)"),
            KeySpec("from", required: true, "the collection searched for the nearest record (e.g. cities)"),
            KeySpec("from-latitude", "its latitude field (default: the same name as 'latitude')"),
            KeySpec("from-longitude", "its longitude field (default: the same name as 'longitude')"),
            KeySpec(
                "take", required: true,
                "the fields copied from the nearest record, {new field: its field}, e.g. {city: name, country: country}"
            ),
            KeySpec("distance-field", "name of the added distance in km (default nearestKm)"),
            KeySpec(
                "max-km",
                "beyond this distance a record has no nearest record: the taken fields and distance are null (default: no limit)"
            ),
            KeySpec(
                "decimals",
                "round the distance to this many decimals, 0 to 10, half away from zero on its shortest decimal form (default 3: metres)"
            ),
        ],
        details: #"""
            Great-circle distance on a sphere of radius 6,371.0088 km, through a k-d tree over unit
            vectors built once per run (correct across the antimeridian and at the poles; no scan per
            record). Of records at the same position (a pole at any longitude, longitude -180 or 180
            included) the first in the collection's order wins. `max-km` compares the distance as
            written (rounded to `decimals`). A record without a position on the globe (missing or
            non-numeric coordinates, latitude beyond ±90, longitude beyond ±180) keeps nulls with a
            `coordinates` warning naming the bad field; candidates without one are left out of the
            index, with one `coordinates` warning saying how many.
            """#,
        example: """
            - enrich: nearest
              collection: places
              latitude: latitude
              longitude: longitude
              from: cities
              take: {city: name, country: country}
              distance-field: cityKm
              max-km: 50
            """)

    public let collection: CollectionID
    let latitude: FieldID
    let longitude: FieldID
    let from: CollectionID
    let fromLatitude: FieldID
    let fromLongitude: FieldID
    let take: TakenFields
    let distanceField: FieldID
    let maxKm: Double?
    let decimals: DecimalPlaces

    public var lookedUp: CollectionID? { from }

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        latitude = try plan.field(config, key: "latitude", in: collection)
        longitude = try plan.field(config, key: "longitude", in: collection)
        from = try plan.fromCollection(config, other: collection)
        let schema = plan.schema(collection)
        let fromSchema = plan.schema(from)
        let source = from
        func fromField(_ key: String, sameAs own: FieldID) throws -> FieldID {
            if config[key] != nil { return try plan.field(config, key: key, in: source) }
            guard let id = fromSchema.id(of: schema[own].name) else {
                throw config.error(
                    "'\(source)' has no field '\(schema[own].name)'; name its \(key.dropFirst(5)) field with '\(key)' (its fields are: \(fromSchema.names.joined(separator: ", ")))"
                )
            }
            return id
        }
        fromLatitude = try fromField("from-latitude", sameAs: latitude)
        fromLongitude = try fromField("from-longitude", sameAs: longitude)
        for (key, id, fields) in [
            ("latitude", latitude, schema), ("longitude", longitude, schema),
            ("from-latitude", fromLatitude, fromSchema), ("from-longitude", fromLongitude, fromSchema),
        ] {
            try Coordinates.requireNumeric(id, in: fields, at: config[key] ?? config.node)
        }
        maxKm = try config.number("max-km")
        if let maxKm, !(maxKm >= 0) { throw config["max-km"]!.error("'max-km' must be a distance in km, 0 or more") }
        decimals = try config.decimalPlaces() ?? DecimalPlaces(3)
        take = try TakenFields(config, plan: plan, collection: collection, from: from, defaults: false)
        let distanceName = try config.string("distance-field") ?? "nearestKm"
        let distanceNode = config["distance-field"] ?? config.node
        if take.contains(name: distanceName, in: plan.schema(collection)) {
            throw distanceNode.error(
                "'\(distanceName)' is both a 'take' field and the distance field; give the distance another name with 'distance-field'"
            )
        }
        distanceField = try plan.addField(distanceName, type: .number, to: collection, at: distanceNode)
    }

    public func run(_ state: RunState) throws {
        let candidates = state.records(from)
        var points: [(latitude: Double, longitude: Double)] = []
        var positions: [Int] = []
        for (position, record) in candidates.enumerated() {
            if let point = Coordinates.of(record, fromLatitude, fromLongitude) {
                points.append(point)
                positions.append(position)
            }
        }
        let index = SphereIndex(points)
        let step = "enrich: nearest"
        if points.count < candidates.count {
            // Said once for the collection: which candidates the search cannot offer.
            let left = candidates.count - points.count
            let message =
                points.isEmpty
                ? "none of the \(candidates.count) \(from) records has a position on the globe, so no \(collection) record gets a nearest \(from) record"
                : "\(left) of \(candidates.count) \(from) records have no position on the globe (missing or out-of-range coordinates) and are never a nearest \(from) record"
            state.warn(
                Finding(rule: .coordinates, severity: .warning, message: message), record: nil, in: from, step: step)
        }
        let schema = state.schemas[loaded: collection]
        let (latName, lonName) = (schema[latitude].name, schema[longitude].name)
        try state.transformRecords(collection, step: step, parallel: true) { record in
            take.apply(to: &record, from: nil)
            record[distanceField] = .null
            guard let point = Coordinates.of(record, latitude, longitude) else {
                let bad = Coordinates.latitude(record[latitude]) == nil ? latitude : longitude
                let shown = "\(RuleFields.describe(record[latitude])), \(RuleFields.describe(record[longitude]))"
                return [
                    Finding(
                        rule: .coordinates, severity: .warning,
                        message:
                            "\(latName), \(lonName) = \(shown) is not a position on the globe (latitude within ±90, longitude within ±180); no nearest \(from) record",
                        location: record.origin.location(ofField: schema[bad]), field: schema[bad].name,
                        value: record[bad])
                ]
            }
            guard let found = index.nearest(latitude: point.latitude, longitude: point.longitude) else { return [] }
            // The cut-off applies to the distance as written, so 50 km passes `max-km: 50`.
            let rounded = decimals.roundExactly(found.km)
            if let maxKm, rounded > maxKm { return [] }
            let nearest = candidates[positions[found.index]]
            take.apply(to: &record, from: nearest)
            record[distanceField] = .double(rounded)
            return []
        }
    }
}
