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
