import Testing

@testable import SeedForge

/// The bytes of a key component written in place (ASCII text straight from its UTF-8,
/// numbers in one growth of the key) are the bytes the key's definition gives: for text, the
/// rank 0x20, the collation key and the NFC text (folded) or the text alone (exact), each
/// ended by two zeros; for numbers, the rank 0x10 and two big-endian words; a descending
/// component inverted.
@Suite("Support: byte keys written in place")
struct ByteKeyTests {
    /// The text component by its definition, through the general path (`appendText`).
    static func textComponent(_ text: String, folded: Bool, descending: Bool) -> [UInt8] {
        var key = ByteKey()
        key.appendText(folded ? Collation.key(text) : text)
        var bytes = [0x20] + (folded ? key.bytes : [])
        var exact = ByteKey()
        exact.appendText(UnicodeNormalize.nfc(text))
        bytes += exact.bytes
        return descending ? bytes.map { ~$0 } : bytes
    }

    @Test func asciiTextIsItsDefinitionsBytes() {
        var generator = SplitMix64(state: 11)
        let alphabet = Array(
            " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~")
        var texts = ["", "A", "z", "Kyiv", "KYIV kyiv", "@[`{", String(repeating: "Zq", count: 150)]
        for _ in 0..<300 {
            texts.append(
                String(
                    (0..<Int.random(in: 0...24, using: &generator)).map { _ in
                        alphabet.randomElement(using: &generator)!
                    }))
        }
        for text in texts {
            for (order, folded) in [(TextOrder.folded, true), (TextOrder.exact, false)] {
                for descending in [false, true] {
                    let expected = Self.textComponent(text, folded: folded, descending: descending)
                    // Behind another component, as in a key of several parts.
                    var value = ByteKey()
                    value.appendNumber(1)
                    let head = value.bytes
                    value.append(.string(text), text: order, descending: descending)
                    #expect(Array(value.bytes.dropFirst(head.count)) == expected, "\(text) \(order) \(descending)")
                    var inPlace = ByteKey()
                    inPlace.appendNumber(1)
                    let taken = Array(text.utf8).withUnsafeBufferPointer {
                        inPlace.appendASCIIText($0, text: order, descending: descending)
                    }
                    #expect(taken)
                    #expect(inPlace == value, "\(text) \(order) \(descending)")
                }
            }
        }
        // Text the in-place path declines (a NUL, non-ASCII) leaves the key as it was.
        for text in ["a\u{0}b", "Zürich", "東京"] {
            var key = ByteKey()
            key.appendNumber(2)
            let before = key.bytes
            let taken = Array(text.utf8).withUnsafeBufferPointer { key.appendASCIIText($0, text: .folded) }
            #expect(!taken)
            #expect(key.bytes == before)
        }
    }

    @Test func numbersAreTheRankAndTwoBigEndianWords() {
        for (double, exact) in [
            (0.0, Int64(0)), (-0.0, 0), (2.5, 0), (-7, -7), (1e300, 0), (-1e-300, 0), (9.2e18, Int64.max),
        ] {
            var key = ByteKey()
            key.append(.string("x"), text: .exact)
            let head = key.bytes.count
            key.appendNumber(double, exact: exact)
            let normalized = double == 0 ? 0.0 : double
            let ordered = normalized.sign == .minus ? ~normalized.bitPattern : normalized.bitPattern | (1 << 63)
            let biased = UInt64(bitPattern: exact) ^ (1 << 63)
            let words = [ordered, biased].flatMap { word in
                (0..<8).map { UInt8(truncatingIfNeeded: word >> (56 - 8 * $0)) }
            }
            #expect(Array(key.bytes.dropFirst(head)) == [0x10] + words, "\(double)")
        }
        // Their order is the numbers' order.
        let numbers: [Double] = [-1e9, -2.5, -0.001, 0, 0.001, 1, 2.5, 1e9]
        let keys = numbers.map { number -> ByteKey in
            var key = ByteKey()
            key.appendNumber(number)
            return key
        }
        #expect(keys == keys.sorted())
    }
}
