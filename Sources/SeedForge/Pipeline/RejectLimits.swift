/// `max-rejects` and `max-reject-fraction`, read with one set of checks and messages
/// wherever they appear: a validate step's own limits and the pipeline's `thresholds`.
struct RejectLimits {
    let maxRejects: Int?
    let maxRejectFraction: Double?

    static let keys = ["max-rejects", "max-reject-fraction"]

    init(_ map: ConfigMap) throws {
        maxRejects = try map.int("max-rejects")
        if let max = maxRejects, max < 0 {
            throw map["max-rejects"]!.error("'max-rejects' must not be negative, found \(max)")
        }
        maxRejectFraction = try map.number("max-reject-fraction")
        if let fraction = maxRejectFraction, !(0...1).contains(fraction) {
            throw map["max-reject-fraction"]!.error("'max-reject-fraction' must be between 0 and 1, found \(fraction)")
        }
    }
}
