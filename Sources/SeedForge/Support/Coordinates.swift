/// Latitude and longitude fields as the geographic steps (`enrich: nearest`, `dedupe`
/// `within`) read them: declared numeric, and usable only as a position on the globe.
enum Coordinates {
    static let fieldTypes: Set<FieldType> = [.number, .integer, .decimal, .any]

    /// Fails the definition when a coordinate field is declared as something other than a number.
    static func requireNumeric(_ id: FieldID, in schema: Schema, at node: ConfigNode) throws {
        guard fieldTypes.contains(schema[id].type) else {
            throw node.error("'\(schema[id].name)' is \(schema[id].type.rawValue); coordinates must be numbers")
        }
    }

    static func latitude(_ value: Value) -> Double? { value.number.flatMap { (-90...90).contains($0) ? $0 : nil } }
    static func longitude(_ value: Value) -> Double? { value.number.flatMap { (-180...180).contains($0) ? $0 : nil } }

    /// The record's position, or nil when either coordinate is missing, not a number or
    /// out of range.
    static func of(
        _ record: Record, _ latitude: FieldID, _ longitude: FieldID
    ) -> (latitude: Double, longitude: Double)? {
        guard let lat = Self.latitude(record[latitude]), let lon = Self.longitude(record[longitude]) else { return nil }
        return (lat, lon)
    }
}
