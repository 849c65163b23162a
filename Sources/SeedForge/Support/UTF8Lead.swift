/// What a UTF-8 lead byte announces: how many continuation bytes follow and the range
/// the first of them must lie in (which rules out overlong forms, surrogates and values
/// above U+10FFFF). Nil for bytes that cannot start a sequence. Shared by the JSON reader
/// and the HTML page-encoding check.
enum UTF8Lead {
    @inline(__always)
    static func sequence(_ lead: UInt8) -> (continuations: Int, low: UInt8, high: UInt8)? {
        switch lead {
        case 0xC2...0xDF: return (1, 0x80, 0xBF)
        case 0xE0: return (2, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: return (2, 0x80, 0xBF)
        case 0xED: return (2, 0x80, 0x9F)
        case 0xF0: return (3, 0x90, 0xBF)
        case 0xF1...0xF3: return (3, 0x80, 0xBF)
        case 0xF4: return (3, 0x80, 0x8F)
        default: return nil
        }
    }
}
