import Foundation
import Testing

@testable import SeedForge

@Suite("Collation")
struct CollationTests {
    @Test(arguments: [
        ("Gorkhā", "gorkha"), ("Zürich", "zurich"), ("Straße", "strasse"), ("ﬁsh", "fish"),
        ("Łódź", "lodz"), ("Æble", "aeble"), ("Øresund", "oresund"), ("Œuvre", "oeuvre"),
        ("Đà Nẵng", "da nang"), ("Þingvellir", "thingvellir"), ("ＡＢＣ", "abc"), ("Hurzuf", "hurzuf"),
    ])
    func foldsCaseDiacriticsAndTheDocumentedExtras(text: String, key: String) {
        #expect(Collation.key(text) == key)
    }

    @Test func theLatinFastPathGivesExactlyWhatFoundationGives() {
        // Every character below U+0250 alone, and seeded random names mixing them.
        for value in 0x20..<0x250 {
            let text = String(Character(Unicode.Scalar(UInt32(value))!))
            #expect(Collation.latinKey(text) == Collation.foundationKey(text), "U+\(String(value, radix: 16))")
        }
        var seed: UInt64 = 42
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<2_000 {
            var text = ""
            for _ in 0..<(1 + next(12)) {
                let value = next(4) == 0 ? 0x20 + next(0x5F) : 0xC0 + next(0x250 - 0xC0)
                text.unicodeScalars.append(Unicode.Scalar(UInt32(value))!)
            }
            #expect(Collation.latinKey(text) == Collation.foundationKey(text), "\(text)")
        }
        // A character from U+0250 on (two bytes up to U+07FF, three, four) leaves the fast
        // path, wherever it stands; none is lost or kept half.
        for text in ["ɐbc", "abɐ", "Zürichɐ", "ab\u{300}", "Ōsaka 東京", "x😀", "ÿ", ""] {
            let hasLater = text.unicodeScalars.contains { $0.value >= 0x250 }
            #expect((Collation.latinKey(text) == nil) == hasLater, "\(text)")
        }
        #expect(Collation.latinKey("") == "")
        #expect(Collation.latinKey("ÀÉÎõü ß Æ") == "aeiou ss ae")
    }

    @Test func nfcQuickCheckLeavesComposedTextAlone() {
        #expect(UnicodeNormalize.nfc("Qaraçala") == "Qaraçala")
        #expect(UnicodeNormalize.nfc("Qualita\u{308}t") == "Qualität")
        #expect(UnicodeNormalize.nfc("Qualita\u{308}t").unicodeScalars.count == 8)
    }

    @Test func ordersByKeyThenExactText() {
        let names = ["zeta", "Ápiculture", "apiculture", "Bienenhaus", "Éclair", "eclair"]
        let sorted = names.sorted { Collation.compare($0, $1) == .orderedAscending }
        #expect(
            sorted
                == ["Ápiculture", "apiculture", "Bienenhaus", "Éclair", "eclair", "zeta"].sorted {
                    Collation.compare($0, $1) == .orderedAscending
                })
        #expect(sorted.first.map(Collation.key) == "apiculture")
        #expect(Collation.compare("Éclair", "eclair") != .orderedSame)
        #expect(Collation.compare("Alabama", "albuquerque") == .orderedAscending)
    }
}
