import Foundation

/// The text collation seedforge sorts and searches with, the same on every machine:
///
/// 1. Unicode NFKC (compatibility forms: `ﬁ` → `fi`, full-width `Ａ` → `A`);
/// 2. case and diacritic folding without a locale (`Zürich` → `zurich`, `Straße` → `strasse`);
/// 3. letters that folding keeps are mapped by a fixed table: `ł`→`l`, `æ`→`ae`, `ø`→`o`,
///    `œ`→`oe`, `đ`/`ð`→`d`, `þ`→`th`, `ı`→`i`, `ĳ`→`ij`;
/// 4. keys compare by Unicode scalar value (byte order of UTF-8); equal keys are ordered
///    by the NFC text itself, then by the caller's tie-breaker (usually the id).
public enum Collation {
    static let extraFolds: [Character: String] = [
        "ł": "l", "æ": "ae", "ø": "o", "œ": "oe", "đ": "d", "ð": "d", "þ": "th", "ı": "i", "ĳ": "ij",
    ]

    /// The folded key of a text.
    public static func key(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return text.lowercased()
        }
        if let latin = latinKey(text) { return latin }
        return foundationKey(text)
    }

    /// The key computed by Foundation, for any text (the definition the fast path copies).
    static func foundationKey(_ text: String) -> String {
        let folded = text.precomposedStringWithCompatibilityMapping
            .folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        guard folded.contains(where: { extraFolds[$0] != nil }) else { return folded }
        var out = ""
        out.reserveCapacity(folded.utf8.count)
        for character in folded {
            if let replacement = extraFolds[character] { out += replacement } else { out.append(character) }
        }
        return out
    }

    /// The folded form of each Latin character below U+0250, computed once by
    /// `foundationKey`, so the fast path gives exactly what Foundation gives.
    static let latinFolds: [String] = (0..<0x250).map { value in
        foundationKey(String(Character(Unicode.Scalar(UInt32(value))!)))
    }

    /// `latinFolds` as UTF-8, one after the other: the fold of `value` is
    /// `bytes[starts[value]..<starts[value + 1]]`; `most`, the longest of them.
    private static let latinFoldUTF8: (bytes: [UInt8], starts: [Int], most: Int) = {
        var bytes: [UInt8] = []
        var starts = [0]
        for fold in latinFolds {
            bytes += fold.utf8
            starts.append(bytes.count)
        }
        return (bytes, starts, latinFolds.map(\.utf8.count).max() ?? 0)
    }()

    /// The key of a text made only of characters below U+0250 (most Latin-script names),
    /// one table look-up per character; nil for other text. Written as UTF-8 into the new
    /// string's storage: appending each character to a `String` took about 4,000
    /// instructions a name (callgrind, the shipped cities' 47,990 names of this kind).
    static func latinKey(_ text: String) -> String? {
        let table = latinFoldUTF8
        // `withUTF8` makes a bridged string's UTF-8 contiguous first (native strings are).
        var text = text
        return text.withUTF8 { utf8 -> String? in
            // A character below U+0250 takes one or two bytes and its fold at most `most`.
            let capacity = utf8.count * Swift.max(table.most, 1)
            var failed = false
            let key = table.bytes.withUnsafeBufferPointer { folds in
                table.starts.withUnsafeBufferPointer { starts in
                    String(unsafeUninitializedCapacity: capacity) { out in
                        var written = 0
                        var index = 0
                        while index < utf8.count {
                            let lead = utf8[index]
                            if lead < 0x80 {
                                out[written] = lowercasedASCII(lead)
                                written += 1
                                index += 1
                                continue
                            }
                            // Two bytes `110xxxxx 10yyyyyy` for U+0080 to U+07FF; U+0250 and
                            // above (and any longer sequence) leave the fast path.
                            guard lead & 0xE0 == 0xC0, index + 1 < utf8.count else {
                                failed = true
                                return 0
                            }
                            let value = Int(lead & 0x1F) << 6 | Int(utf8[index + 1] & 0x3F)
                            guard value < 0x250 else {
                                failed = true
                                return 0
                            }
                            for at in starts[value]..<starts[value + 1] {
                                out[written] = folds[at]
                                written += 1
                            }
                            index += 2
                        }
                        return written
                    }
                }
            }
            return failed ? nil : key
        }
    }

    /// An ASCII byte's lower case (A to Z lowered, any other byte as it is): the collation
    /// key of ASCII text, byte by byte.
    @inline(__always)
    static func lowercasedASCII(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

    /// Orders two texts by collation key, then by their NFC text.
    public static func compare(_ a: String, _ b: String) -> ComparisonResult {
        let order = compareBytes(key(a), key(b))
        if order != .orderedSame { return order }
        return compareBytes(a.precomposedStringWithCanonicalMapping, b.precomposedStringWithCanonicalMapping)
    }

    /// Byte order of UTF-8, which is Unicode scalar order.
    public static func compareBytes(_ a: String, _ b: String) -> ComparisonResult {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case (let l?, let r?):
                if l != r { return l < r ? .orderedAscending : .orderedDescending }
            }
        }
    }
}
