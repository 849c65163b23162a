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
            // Eight ASCII bytes at a piece's start, none of them CR, with an ASCII byte after
            // them: each is a character of its own (the loop below would count them one by
            // one), taken in one load. A one-line page file of 500 KB is counted whole once
            // for its checkpoints when it has a reject, so the shipped cities count 21 MB.
            if index == pieceStart, end - index > 8, bytes[index + 8] < 0x80 {
                let word = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0, !Self.holdsCR(word) {
                    total += 8
                    index += 8
                    pieceStart = index
                    continue
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
                    total +=
                        String(decoding: UnsafeBufferPointer(rebasing: bytes[pieceStart..<next]), as: UTF8.self).count
                }
                pieceStart = next
            }
            index = next
        }
        return total
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
