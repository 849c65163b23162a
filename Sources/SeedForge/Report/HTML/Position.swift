/// A record's position on the globe, found by the names its fields carry, for the report's
/// world map. The report reads emitted files and rejected records as written, so it looks
/// for the shapes the datasets use:
/// - an object with `lat`/`latitude` and `lon`/`lng`/`longitude` numbers, at the top or
///   nested up to three levels (`coord: {lon, lat}`, `geometry.location: {lat, lng}`);
/// - a pair of numbers under `coordinates`, `coord`, `coords`, `position`, `location`,
///   `latlng` or `latlon`: `[lat, lon]` (the app shape seedforge writes), read as
///   `[lon, lat]` (GeoJSON) only when the first number cannot be a latitude.
public struct Position: Sendable, Equatable {
    public let lat: Double
    public let lon: Double

    /// Whether the position lies on the globe (latitude within ±90, longitude ±180).
    public var onGlobe: Bool { abs(lat) <= 90 && abs(lon) <= 180 }

    static let latitudeKeys = ["lat", "latitude"]
    static let longitudeKeys = ["lon", "lng", "long", "longitude"]
    static let pairKeys: Set<String> = ["coordinates", "coord", "coords", "position", "location", "latlng", "latlon"]

    public static func find(in value: Value) -> Position? { find(value, depth: 0) }

    static func find(_ value: Value, depth: Int) -> Position? {
        guard case .object(let object) = value, depth <= 3 else { return nil }
        var lat: Double?
        var lon: Double?
        for (key, member) in object.pairs {
            let lower = key.lowercased()
            if latitudeKeys.contains(lower) { lat = member.number }
            if longitudeKeys.contains(lower) { lon = member.number }
        }
        if let lat, let lon { return Position(lat: lat, lon: lon) }
        for (key, member) in object.pairs {
            if pairKeys.contains(key.lowercased()), case .array(let pair) = member, pair.count == 2,
                let first = pair[0].number, let second = pair[1].number
            {
                return abs(first) > 90 && abs(second) <= 90
                    ? Position(lat: second, lon: first) : Position(lat: first, lon: second)
            }
        }
        for member in object.values {
            if let found = find(member, depth: depth + 1) { return found }
        }
        return nil
    }
}
