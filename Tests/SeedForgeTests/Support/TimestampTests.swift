import Foundation
import Testing

@testable import SeedForge

@Suite("Timestamps")
struct TimestampTests {
    @Test(arguments: [
        ("2025-09-17T10:15:00Z", 1_758_104_100.0),
        ("2025-09-17T12:15:00+02:00", 1_758_104_100.0),
        ("2025-09-17t10:15:00.250z", 1_758_104_100.25),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("1970-01-01T00:00:00-00:30", 1800.0),
    ])
    func parsesValidTimestamps(text: String, seconds: Double) {
        #expect(Timestamp.parse(text) == seconds)
    }

    @Test(arguments: [
        "2025-02-30T10:00:00Z", "2023-02-29T00:00:00Z", "2025-13-01T00:00:00Z", "2025-09-17T24:00:00Z",
        "2025-09-17T10:15:00", "2025-09-17", "yesterday", "2025-09-17T10:15:00+2:00", "2025-09-17T10:15:00.Z",
        "2025-09-17T10:15:00Z trailing",
    ])
    func rejectsInvalidTimestamps(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }
}
