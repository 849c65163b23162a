import Testing

@testable import SeedForge

/// Columns count characters as `String.count` does; the fast count must agree with it on
/// every kind of text a source file holds.
@Suite("CharacterCount")
struct CharacterCountTests {
    @Test(arguments: [
        "", "a", "plain ascii text, 123 {}[]\"", "e\u{301}clair", "Zu\u{308}rich", "Gorkhā", "line\r\nnext", "cr\rlf\n",
        "\r\n\r\n", "👩‍👩‍👧 family", "🇺🇦🇫🇷 flags", "क्षत्रिय", "ﬁ", "a\u{301}\u{302}\u{303}b", "\u{600}1 prepend",
        "한국어", "tab\there", "x\u{200D}y", "\u{301}leading mark",
    ])
    func agreesWithStringCount(text: String) {
        let bytes = Array(text.utf8)
        #expect(CharacterCount.count(bytes[...]) == text.count)
    }

    /// Every scalar counted without `String` (U+0080 to U+02FF), between ASCII, beside a
    /// neighbour of its range, before a combining mark, a ZWJ and a CR LF, and after CR.
    @Test func agreesOnEveryTwoByteScalarBelowCombiningMarks() {
        for value in UInt32(0x80)...0x2FF {
            let scalar = String(Character(Unicode.Scalar(value)!))
            for text in [
                "a\(scalar)b", "\(scalar)\u{2FF}x\u{80}", "\(scalar)\u{301}", "\(scalar)\u{200D}©", "\(scalar)\r\n",
                "\r\(scalar)", "\(scalar)ł\u{300}", String(repeating: scalar, count: 3),
            ] {
                #expect(CharacterCount.count(Array(text.utf8)[...]) == text.count, "\(Array(text.unicodeScalars))")
            }
        }
    }

    @Test func agreesOnRandomMixesAndInvalidBytes() {
        let pieces: [[UInt8]] = [
            Array("ab".utf8), Array("\r".utf8), Array("\n".utf8), Array("\u{301}".utf8), Array("é".utf8),
            Array("🏳️‍🌈".utf8),
            [0xFF], [0xC3], Array("{\"name\":\"".utf8), Array("ł".utf8), Array("\u{600}".utf8), Array(" ".utf8),
            // Runs of ASCII as long as a word and longer, for the eight-byte steps: a mark,
            // a CR LF or a prepend beside them must still join what it joins.
            Array("abcdefgh".utf8), Array("0123456789abcdefghij".utf8), Array("abcdefg\r".utf8),
            // Two-byte scalars at the ends of the range counted without `String` (U+0080,
            // U+02FF) and just past it (U+0300, a combining mark; U+0370), the soft hyphen,
            // a ZWJ after a pictographic `©`, and malformed two-byte sequences: a lone
            // continuation byte, the overlong leads C0 and C1, a lead at the end.
            Array("\u{80}".utf8), Array("\u{2FF}".utf8), Array("\u{300}".utf8), Array("\u{370}".utf8),
            Array("\u{AD}".utf8), Array("©\u{200D}".utf8), [0x80], [0xC0, 0x80], [0xC1, 0xBF], [0xCB], [0xCC],
        ]
        var generator = SplitMix64(state: 25)
        for _ in 0..<5_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...24, using: &generator) { bytes += pieces.randomElement(using: &generator)! }
            let expected = String(decoding: bytes, as: UTF8.self).count
            #expect(CharacterCount.count(bytes[...]) == expected, "\(bytes)")
        }
    }
}
