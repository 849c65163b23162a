import Testing

@testable import SeedForge

/// `normalize: unicode`: NFC and control characters.
@Suite("Normalize: unicode")
struct UnicodeNormalizeTests {
    @Test func controlCharactersAreExactlyUnicodesControlCategory() {
        let disagreeing = (UInt32(0)...0x10FFFF).compactMap(Unicode.Scalar.init).filter {
            UnicodeNormalize.isControl($0) != ($0.properties.generalCategory == .control)
        }
        #expect(disagreeing.isEmpty, "\(disagreeing.prefix(5).map { "U+" + String($0.value, radix: 16) })")
        #expect(UnicodeNormalize.normalized("a\u{85}b\tc\u{7F}", stripControl: true) == "ab c")
        #expect(UnicodeNormalize.isPrintableASCII("Hurzuf 2"))
        #expect(!UnicodeNormalize.isPrintableASCII("Zu\u{308}rich"))
        #expect(!UnicodeNormalize.isPrintableASCII("tab\there"))
    }

    @Test func unicodeComposesToNFCAndStripsControls() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- normalize: unicode\n  collection: items",
            records: #"[{"id":1,"name":"Qualita\u0308t\u0007 ok\tyes"}]"#)
        let name = try #require(result.records("items")[0]["name"]?.string)
        #expect(name == "Qualität ok yes")
        #expect(name.unicodeScalars.count == 15)
    }
}
