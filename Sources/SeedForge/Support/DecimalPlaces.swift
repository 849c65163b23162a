/// A number of decimal places to round to, half away from zero: `decimals:` of the steps
/// that compute numbers and `precision:` of dedupe. 0 to 10 places.
public struct DecimalPlaces: Sendable {
    public static let allowed = 0...10
    public let places: Int
    let scale: Double

    init(_ places: Int) {
        precondition(Self.allowed.contains(places), "decimal places out of range")
        self.places = places
        scale = (0..<places).reduce(1.0) { value, _ in value * 10 }
    }

    /// The value rounded; a value too large to scale (near the limits of a double) is
    /// returned as it is rather than turned into infinity.
    func round(_ value: Double) -> Double {
        let scaled = value * scale
        guard scaled.isFinite else { return value }
        return scaled.rounded(.toNearestOrAwayFromZero) / scale
    }
}

extension ConfigMap {
    /// `key` as a number of decimal places, or nil when it is not given.
    func decimalPlaces(_ key: String = "decimals") throws -> DecimalPlaces? {
        guard let places = try int(key) else { return nil }
        guard DecimalPlaces.allowed.contains(places) else {
            throw self[key]!.error("'\(key)' must be between 0 and 10, got \(places)")
        }
        return DecimalPlaces(places)
    }
}
