import Testing

@testable import SeedForge

@Suite("Support: exact decimals")
struct ExactDecimalTests {
    @Test func decimalsAreCanonicalAndExact() {
        #expect(ExactDecimal.canonical("051.770") == "51.77")
        #expect(ExactDecimal.canonical("-0.0") == "0")
        #expect(ExactDecimal.canonical("1.") == "1")
        #expect(ExactDecimal.canonical(".5") == "0.5")
        #expect(ExactDecimal.canonical("1e3") == nil)
        #expect(JSONWriter.compact(.decimal("0.30000000000000000001")) == "0.30000000000000000001")
    }
}
