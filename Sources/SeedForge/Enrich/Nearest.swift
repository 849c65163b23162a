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
        summary: "Copy fields of the nearest record of another collection (great-circle distance, k-d tree), with the distance in km.",
        keys: [
            CommonKeys.collection,
            KeySpec("latitude", required: true, "the collection's latitude field (degrees)"),
            KeySpec("longitude", required: true, "the collection's longitude field (degrees)"),
            KeySpec("from", required: true, "the collection searched for the nearest record (e.g. cities)"),
            KeySpec("from-latitude", "its latitude field (default: the same name as 'latitude')"),
            KeySpec("from-longitude", "its longitude field (default: the same name as 'longitude')"),
            KeySpec("take", required: true, "the fields copied from the nearest record, {new field: its field}, e.g. {city: name, country: country}"),
            KeySpec("distance-field", "name of the added distance in km (default nearestKm)"),
            KeySpec("max-km", "beyond this distance a record has no nearest record: the taken fields and distance are null (default: no limit)"),
            KeySpec("decimals", "round the distance to this many decimals, 0 to 10 (default 3: metres)"),
        ],
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

    public let collection: String
    let latitude: FieldID
    let longitude: FieldID
    let from: String
    let fromLatitude: FieldID
    let fromLongitude: FieldID
    let take: [(into: FieldID, from: FieldID)]
    let distanceField: FieldID
    let maxKm: Double?
    let decimals: Int

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        latitude = try plan.field(config, key: "latitude", in: collection)
        longitude = try plan.field(config, key: "longitude", in: collection)
        from = try plan.collection(config, key: "from")
        if from == collection { throw config["from"]!.error("'from' must name another collection than '\(collection)'") }
        let schema = plan.schema(collection)
        fromLatitude = try config["from-latitude"] == nil
            ? plan.field(schema[latitude].name, in: from, at: config["latitude"]!)
            : plan.field(config, key: "from-latitude", in: from)
        fromLongitude = try config["from-longitude"] == nil
            ? plan.field(schema[longitude].name, in: from, at: config["longitude"]!)
            : plan.field(config, key: "from-longitude", in: from)
        for (key, id) in [("latitude", latitude), ("longitude", longitude)] {
            guard [.number, .integer, .decimal, .any].contains(schema[id].type) else {
                throw config[key]!.error("'\(schema[id].name)' is \(schema[id].type.rawValue); coordinates must be numbers")
            }
        }
        maxKm = try config.number("max-km")
        if let maxKm, !(maxKm >= 0) { throw config["max-km"]!.error("'max-km' must be a distance in km, 0 or more") }
        decimals = try config.int("decimals") ?? 3
        if !(0...10).contains(decimals) { throw config["decimals"]!.error("'decimals' must be between 0 and 10, got \(decimals)") }
        let takeNode = try config.require("take")
        var take: [(FieldID, FieldID)] = []
        let pairs = try takeNode.mapping("'take'").mapping
        if pairs.isEmpty { throw takeNode.error("'take' names no field; give {new field: field of \(from)}") }
        let fromSchema = plan.schema(from)
        let target = collection
        for (keyNode, valueNode) in pairs {
            let key = ConfigNode(node: keyNode, file: config.file)
            let value = ConfigNode(node: valueNode, file: config.file)
            let source = try plan.field(value.string("a field of '\(from)'"), in: from, at: value)
            let into = try plan.addField(key.string("a new field name"), type: fromSchema[source].type, to: target, at: key)
            take.append((into, source))
        }
        self.take = take
        distanceField = try plan.addField(config.string("distance-field") ?? "nearestKm", type: .number, to: collection, at: config["distance-field"] ?? config.node)
    }

    /// Usable coordinates of a record, or nil.
    static func coordinates(_ record: Record, _ latitude: FieldID, _ longitude: FieldID) -> (latitude: Double, longitude: Double)? {
        guard let lat = record[latitude].number, let lon = record[longitude].number,
              (-90...90).contains(lat), (-180...180).contains(lon) else { return nil }
        return (lat, lon)
    }

    public func run(_ state: RunState) throws {
        let candidates = state.records(from)
        var points: [(latitude: Double, longitude: Double)] = []
        var positions: [Int] = []
        for (position, record) in candidates.enumerated() {
            if let point = Self.coordinates(record, fromLatitude, fromLongitude) {
                points.append(point)
                positions.append(position)
            }
        }
        let index = SphereIndex(points)
        let schema = state.schemas[collection]!
        let (latName, lonName) = (schema[latitude].name, schema[longitude].name)
        let latPath = schema[latitude].sourcePath
        let scale = RatingSummary.powersOfTen[decimals]
        state.transformRecords(collection, step: "enrich: nearest", parallel: true) { record in
            for (into, _) in take { record[into] = .null }
            record[distanceField] = .null
            guard let point = Self.coordinates(record, latitude, longitude) else {
                let shown = "\(RuleFields.describe(record[latitude])), \(RuleFields.describe(record[longitude]))"
                return [Finding(
                    rule: "coordinates", severity: .warning,
                    message: "\(latName), \(lonName) = \(shown) is not a position on the globe (latitude within ±90, longitude within ±180); no nearest \(from) record",
                    location: record.origin.location(of: latPath), field: latName, value: record[latitude])]
            }
            guard let found = index.nearest(latitude: point.latitude, longitude: point.longitude) else { return [] }
            if let maxKm, found.km > maxKm { return [] }
            let nearest = candidates[positions[found.index]]
            for (into, source) in take { record[into] = nearest[source] }
            let rounded = (found.km * scale).rounded(.toNearestOrAwayFromZero) / scale
            record[distanceField] = .double(rounded)
            return []
        }
    }
}
