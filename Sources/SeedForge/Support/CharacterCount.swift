/// Counts the characters (extended grapheme clusters, as `String.count` does) of UTF-8
/// text without building a `String` for the ASCII parts. Columns in messages count
/// characters; on a minified one-line file that count runs over kilobytes per location.
///
/// Two adjacent ASCII bytes always have a character boundary between them, except CR LF
/// (Unicode's grapheme rules join only CR LF, extenders, spacing marks, prepends and
/// joiners, all of which but CR LF are non-ASCII). So the text splits at those boundaries
/// into pieces that are either one ASCII byte (one character) or hold non-ASCII bytes,
/// which `String` counts.
enum CharacterCount {
    static func count(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var total = 0
        var pieceStart = 0
        var index = 0
        let end = bytes.count
        while index < end {
            // A run of words of eight ASCII bytes at a piece's start, none of them CR: each
            // byte is a character of its own but the run's last, which the loop below
            // takes with the byte after it (a mark there would join it). A one-line page
            // file of 500 KB is counted whole once for its checkpoints when it has a reject,
            // so the shipped cities count 21 MB: 96 M instructions in all this way, against
            // 161 M taking one word at a time with the byte after it (callgrind).
            if index == pieceStart {
                var scan = index
                while end - scan >= 8 {
                    let word = UnsafeRawPointer(bytes.baseAddress! + scan).loadUnaligned(as: UInt64.self)
                    if word & 0x8080_8080_8080_8080 != 0 || Self.holdsCR(word) { break }
                    scan += 8
                }
                if scan > index {
                    total += scan - 1 - index
                    index = scan - 1
                    pieceStart = index
                }
            }
            let byte = bytes[index]
            let next = index + 1
            // A boundary after `index` when this byte and the next are ASCII (not CR LF),
            // or at the end of the text.
            let boundary = next == end || (byte < 0x80 && bytes[next] < 0x80 && !(byte == 0x0D && bytes[next] == 0x0A))
            if boundary {
                if next - pieceStart == 1 {
                    total += 1
                } else {
                    let piece = UnsafeBufferPointer(rebasing: bytes[pieceStart..<next])
                    total += Self.scalarsBelowCombiningMarks(piece) ?? String(decoding: piece, as: UTF8.self).count
                }
                pieceStart = next
            }
            index = next
        }
        return total
    }

    /// The characters of a piece whose every character is one scalar below U+0300 other
    /// than CR: ASCII and the two-byte scalars U+0080 to U+02FF (Latin letters with their
    /// accents, symbols, the spacing modifier letters), each a character of its own, so
    /// their number is the count. No scalar below U+0300 joins the one before or after it
    /// (the grapheme rules' Extend, SpacingMark, Prepend, ZWJ and regional indicators all
    /// lie above; `©` and `®` join only through a ZWJ) but CR before LF. Nil for anything
    /// else, counted by `String`: combining marks (from U+0300), other scripts, CR, and
    /// bytes that are not well-formed UTF-8 (a lone continuation byte, a lead without its
    /// continuation, the overlong leads C0 and C1), which `String` repairs.
    /// The shipped cities' pages hold 47,990 Latin names with accents, which went through
    /// `String` one by one when their file's columns were counted (seedforge's own code's
    /// instructions in a first run 5,185 M against 5,248 M, callgrind).
    private static func scalarsBelowCombiningMarks(_ piece: UnsafeBufferPointer<UInt8>) -> Int? {
        var count = 0
        var index = 0
        let end = piece.count
        while index < end {
            let byte = piece[index]
            if byte < 0x80 {
                guard byte != 0x0D else { return nil }
                index += 1
            } else {
                guard byte &- 0xC2 < 0x0A, index + 1 < end, piece[index + 1] & 0xC0 == 0x80 else { return nil }
                index += 2
            }
            count += 1
        }
        return count
    }

    /// Whether a word of eight ASCII bytes holds a CR (0x0D): the bytes equal to it are
    /// the zero bytes of `word ^ 0x0D...`, found with the usual borrow trick, which is exact
    /// for bytes below 0x80.
    private static func holdsCR(_ word: UInt64) -> Bool {
        let x = word ^ 0x0D0D_0D0D_0D0D_0D0D
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0
    }

    static func count(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.withUnsafeBufferPointer { count($0) }
    }

    static func count(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int {
        count(UnsafeBufferPointer(rebasing: bytes))
    }
}
