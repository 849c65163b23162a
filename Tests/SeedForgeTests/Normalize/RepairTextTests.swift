import Foundation
import Testing

@testable import SeedForge

/// Issue 18: `repair-text` undoes UTF-8 read as Windows-1252, only where certain.
@Suite("Normalize: repair-text")
struct RepairTextTests {
    @Test func mojibakeIsRepaired() {
        #expect(RepairText.repaired("Farmersâ€™") == "Farmers’")
        #expect(RepairText.repaired("CafÃ© & crÃ¨me") == "Café & crème")
        #expect(RepairText.repaired("ZÃ¼rich â€“ Honig") == "Zürich – Honig")
        #expect(RepairText.repaired("ðŸ\u{90}\u{9D}") == "🐝", "a four-byte emoji through an unassigned byte")
    }

    @Test func whatIsNotCertainlyMojibakeStays() {
        #expect(RepairText.repaired("SÃO PAULO") == nil, "real Ã: C3 then O is not UTF-8")
        #expect(RepairText.repaired("Café") == nil, "é alone is not a UTF-8 sequence")
        #expect(RepairText.repaired("Farmers’ Market") == nil, "already right")
        #expect(RepairText.repaired("CafÃ© 東京") == nil, "a character outside Windows-1252: not mojibake of UTF-8")
        #expect(RepairText.repaired("plain ASCII") == nil)
    }
}
