/// Looking at 8 bytes at a time: a byte repeated across a word, and which bytes of a word
/// equal it. The scanners of JSON strings and CSV fields use it to skip plain text.
enum ByteWords {
    /// `byte` in each of the 8 bytes of a word.
    @inline(__always)
    static func repeated(_ byte: UInt8) -> UInt64 { 0x0101_0101_0101_0101 &* UInt64(byte) }

    /// The high bit of each byte of `word` that equals the byte repeated in `pattern`
    /// (exact: no byte sets another's bit).
    @inline(__always)
    static func equal(_ word: UInt64, _ pattern: UInt64) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let difference = word ^ pattern
        return ~(((difference & low) &+ low) | difference | low)
    }
}

/// Up to four bytes looked for together, 8 bytes at a time: the bytes that end a CSV
/// field when reading (delimiter, LF, quote) or make one quoted when writing (comma,
/// quote, CR, LF). A set of fewer bytes repeats one of them.
struct ByteSet {
    private let bytes: (UInt8, UInt8, UInt8, UInt8)
    private let words: (UInt64, UInt64, UInt64, UInt64)

    init(_ first: UInt8, _ second: UInt8, _ third: UInt8, _ fourth: UInt8) {
        bytes = (first, second, third, fourth)
        words = (
            ByteWords.repeated(first), ByteWords.repeated(second), ByteWords.repeated(third),
            ByteWords.repeated(fourth)
        )
    }

    /// The offset of the first byte of the set at or after `from` in `count` bytes at
    /// `base`; `count` when none follows.
    @inline(__always)
    func firstIndex(in base: UnsafePointer<UInt8>, from: Int, count: Int) -> Int {
        var position = from
        while position &+ 8 <= count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            let found =
                ByteWords.equal(word, words.0) | ByteWords.equal(word, words.1) | ByteWords.equal(word, words.2)
                | ByteWords.equal(word, words.3)
            if found != 0 { return position &+ found.trailingZeroBitCount &>> 3 }
            position &+= 8
        }
        while position < count {
            let byte = base[position]
            if byte == bytes.0 || byte == bytes.1 || byte == bytes.2 || byte == bytes.3 { return position }
            position &+= 1
        }
        return count
    }
}
