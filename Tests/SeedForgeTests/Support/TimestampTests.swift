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

    /// The manifest's and JSON log's time stamps: the same text Foundation's ICU formatter
    /// gave before (milliseconds rounded, a carry into the next second, leap day, before
    /// 1970, the last day of year 9999).
    @Test(arguments: [
        0.0, 1_764_171_494.1234, 1_764_171_494.9996, 1_764_171_494.9994, 951_782_400.5, -1.25,
        -86_400.0, 253_402_300_799.999, 1_709_164_799.0, 4_107_542_400.0,
    ])
    func formatsInternetTimeAsFoundationDoes(seconds: Double) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(
            Timestamp.internetTime(secondsSince1970: seconds)
                == formatter.string(from: Date(timeIntervalSince1970: seconds)))
    }

    @Test func internetTimeReadsBackAsTheSameInstant() {
        #expect(Timestamp.internetTime(secondsSince1970: 1_758_104_100.25) == "2025-09-17T10:15:00.250Z")
        for seconds in stride(from: -3_000_000_000.0, through: 4_000_000_000.0, by: 86_399_999.5) {
            let text = Timestamp.internetTime(secondsSince1970: seconds)
            #expect(Timestamp.parse(text) == (seconds * 1000).rounded() / 1000, "\(text)")
        }
    }
}
