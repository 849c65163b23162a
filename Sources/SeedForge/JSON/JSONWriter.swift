/// Writes values as JSON, deterministically: keys in the order given, numbers in the
/// shortest form that reads back to the same double, non-ASCII text as UTF-8 (only
/// quotes, backslashes and control characters are escaped).
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public static func compact(_ value: Value) -> String {
        var writer = JSONWriter()
        writer.write(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    public mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    public mutating func reserve(_ count: Int) { bytes.reserveCapacity(count) }
    public mutating func append(byte: UInt8) { bytes.append(byte) }
    public mutating func append(bytes more: [UInt8]) { bytes.append(contentsOf: more) }
    /// Appends bytes read in place; a short piece (a key, a bracket and a comma) byte by byte,
    /// which costs less than the general copy's set-up (two calls and a `memmove` a piece).
    @inline(__always)
    mutating func append(_ more: UnsafeBufferPointer<UInt8>) {
        if more.count <= 16 {
            for byte in more { bytes.append(byte) }
        } else {
            bytes.append(contentsOf: more)
        }
    }
    /// Empties the writer, keeping its room.
    mutating func clear() { bytes.removeAll(keepingCapacity: true) }
    /// Hands the bytes written so far to `write` and starts over (keeping the room), once
    /// they reach `threshold`: a long output written a piece at a time.
    mutating func flush(over threshold: Int = 0, to write: ([UInt8]) throws -> Void) rethrows {
        guard !bytes.isEmpty, bytes.count >= threshold else { return }
        try write(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Compact JSON: no white space.
    public mutating func write(_ value: Value) {
        switch value {
        case .null: append("null")
        case .bool(let bool): append(bool ? "true" : "false")
        case .int(let int): writeInteger(int)
        case .double(let double): writeDouble(double)
        case .decimal(let text): append(text)
        case .string(let string): writeString(string)
        case .array(let array):
            append(byte: UInt8(ascii: "["))
            for (index, element) in array.enumerated() {
                if index > 0 { append(byte: UInt8(ascii: ",")) }
                write(element)
            }
            append(byte: UInt8(ascii: "]"))
        case .object(let object):
            append(byte: UInt8(ascii: "{"))
            for (index, (key, element)) in object.pairs.enumerated() {
                if index > 0 { append(byte: UInt8(ascii: ",")) }
                writeString(key)
                append(byte: UInt8(ascii: ":"))
                write(element)
            }
            append(byte: UInt8(ascii: "}"))
        }
    }

    /// Indented JSON for datasets people diff: one key per line, two spaces a level;
    /// arrays of scalars stay on one line.
    public mutating func writePretty(_ value: Value, indent: Int = 0) {
        switch value {
        case .array(let array) where !array.isEmpty:
            if array.allSatisfy(Self.isScalar) {
                append(byte: UInt8(ascii: "["))
                for (index, element) in array.enumerated() {
                    if index > 0 { append(", ") }
                    write(element)
                }
                append(byte: UInt8(ascii: "]"))
                return
            }
            append("[\n")
            for (index, element) in array.enumerated() {
                if index > 0 { append(",\n") }
                pad(indent + 1)
                writePretty(element, indent: indent + 1)
            }
            append(byte: 0x0A)
            pad(indent)
            append(byte: UInt8(ascii: "]"))
        case .object(let object) where object.count > 0:
            append("{\n")
            for (index, (key, element)) in object.pairs.enumerated() {
                if index > 0 { append(",\n") }
                pad(indent + 1)
                writeString(key)
                append(": ")
                writePretty(element, indent: indent + 1)
            }
            append(byte: 0x0A)
            pad(indent)
            append(byte: UInt8(ascii: "}"))
        default:
            write(value)
        }
    }

    static func isScalar(_ value: Value) -> Bool {
        switch value {
        case .array, .object: return false
        default: return true
        }
    }

    mutating func pad(_ level: Int) {
        for _ in 0..<(level * 2) { bytes.append(UInt8(ascii: " ")) }
    }

    /// An integer's decimal digits, without making a `String` (`storeInteger`'s text).
    mutating func writeInteger(_ value: Int64) {
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for `integerRoom`
        let length = withUnsafeMutableBytes(of: &text) { raw in
            Self.storeInteger(value, at: raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        withUnsafeBytes(of: &text) { raw in
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[..<length]))
        }
    }

    public mutating func writeString(_ string: String) {
        append(byte: UInt8(ascii: "\""))
        // Most text needs no escape: copy it in one go.
        let clean: Bool? = string.utf8.withContiguousStorageIfAvailable { text in
            guard !Self.needsEscape(text) else { return false }
            bytes.append(contentsOf: text)
            return true
        }
        if clean == true {
            append(byte: UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0..<0x20:
                append("\\u00")
                append(byte: Self.hex[Int(byte >> 4)])
                append(byte: Self.hex[Int(byte & 0xF)])
            default: append(byte: byte)
            }
        }
        append(byte: UInt8(ascii: "\""))
    }

    static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether UTF-8 text holds a byte JSON escapes (a control character, `"` or `\`),
    /// checked eight bytes at a time.
    static func needsEscape(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return false }
        let count = text.count
        var index = 0
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            // A byte below 0x20, or equal to '"' or '\\' (a zero byte after xor), sets its
            // high bit here; bytes of 0x80 and above never do (the `& ~word` drops them).
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let found =
                ((word &- ones &* 0x20) | (quote &- ones) | (backslash &- ones)) & ~word & highs
            if found != 0 { return true }
            index += 8
        }
        while index < count {
            let byte = base[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            index += 1
        }
        return false
    }

    /// Writes the text `format` gives, straight into the bytes. Most doubles in data are
    /// decimals of a few digits (coordinates, prices): for those the digits are found by
    /// scaling by a power of ten, checked to read back to the same double, and written
    /// without making a `String`; the others go through `format`.
    public mutating func writeDouble(_ double: Double) {
        if !Self.writePlainDecimal(double, into: &bytes) { append(Self.format(double)) }
    }

    /// Appends the shortest round-trip text of a double between 0.001 and 10^15 in
    /// magnitude with at most 15 significant digits, as Swift's `description` writes it
    /// (`48.86752`, `-0.125`, `1266.0`); false, appending nothing, for any other double.
    static func writePlainDecimal(_ double: Double, into bytes: inout [UInt8]) -> Bool {
        var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        let length = withUnsafeMutableBytes(of: &text) { raw in
            storePlainDecimal(double, at: raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard length > 0 else { return false }
        withUnsafeBytes(of: &text) { raw in
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[..<length]))
        }
        return true
    }

    /// The most bytes `storePlainDecimal` stores (a sign, 17 digits, a point and a `0`).
    static let plainDecimalRoom = 24

    /// Stores at `out` (room for `plainDecimalRoom` bytes) the text `writePlainDecimal`
    /// appends and returns its length; 0, for a double it declines.
    ///
    /// Why it is the same text as `description`: `m`, the double times the power of ten
    /// that leaves 15 significant digits before the point, rounded, is the only 15-digit
    /// decimal that can read back to the double (two decimals of 15 significant digits are
    /// further apart than a double's rounding interval), and `m / 10^k` (`m < 2^53`, an
    /// exact power of ten: one correctly rounded division) equals the double exactly when
    /// it does. Any shorter decimal that reads back is that one with zeros after it, so `m`
    /// without its trailing zeros is the shortest: what `description` picks, and it writes
    /// no exponent in this range. The product is within 0.2 of `m` whenever the check
    /// passes, never on a tie, so rounding ties to even (one instruction) or away from zero
    /// (a call to `round`) gives the same `m`.
    @inline(__always)
    static func storePlainDecimal(_ double: Double, at out: UnsafeMutablePointer<UInt8>) -> Int {
        let magnitude = double.magnitude
        guard magnitude >= 0.001, magnitude < 1e15 else { return 0 }
        // Fraction digits that leave 15 significant ones, and the digits before the point
        // (the scaled value is at least 10^14, so they are 15 - scale when there are any).
        var scale: Int
        let integerDigits: Int
        if magnitude < 1 {
            scale = magnitude < 0.01 ? 17 : magnitude < 0.1 ? 16 : 15
            integerDigits = 0
        } else {
            integerDigits = PowersOfTen.integerDigits(of: magnitude)
            scale = 15 - integerDigits
        }
        let power = PowersOfTen.exact(scale)
        let scaled = (magnitude * power).rounded(.toNearestOrEven)
        guard scaled < 1e15, scaled / power == magnitude else { return 0 }
        var digits = UInt64(scaled)
        // Trailing zeros off, four at a time and then one at a time (45.12345 is scaled to
        // 451234500000000).
        while scale >= 4, digits % 10_000 == 0 {
            digits /= 10_000
            scale -= 4
        }
        while scale > 0, digits % 10 == 0 {
            digits /= 10
            scale -= 1
        }
        // Its length is known: the sign, the integer part (at least "0"), the point, the
        // fraction (at least "0": "1266.0"). Written from the last digit back.
        let negative = double < 0 ? 1 : 0
        let length = negative + Swift.max(integerDigits, 1) + 1 + Swift.max(scale, 1)
        var position = length
        var rest = digits
        if scale == 0 {
            position -= 1
            out[position] = UInt8(ascii: "0")
        } else {
            storeDigits(of: &rest, count: scale, endingAt: &position, in: out)
        }
        position -= 1
        out[position] = UInt8(ascii: ".")
        if integerDigits == 0 {
            out[position - 1] = UInt8(ascii: "0")
        } else {
            storeDigits(of: &rest, count: integerDigits, endingAt: &position, in: out)
        }
        if negative == 1 { out[0] = UInt8(ascii: "-") }
        return length
    }

    /// Stores the last `count` decimal digits of `rest` before `position`, two at a time
    /// from the pair table, taking them off `rest` and moving `position` back.
    @inline(__always)
    static func storeDigits(
        of rest: inout UInt64, count: Int, endingAt position: inout Int, in out: UnsafeMutablePointer<UInt8>
    ) {
        let pairs = digitPairs
        var left = count
        while left >= 2 {
            let pair = Int(rest % 100) &* 2
            rest /= 100
            position -= 2
            out[position] = pairs[pair]
            out[position + 1] = pairs[pair + 1]
            left -= 2
        }
        if left == 1 {
            position -= 1
            out[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
    }

    /// The most bytes `storeInteger` stores (a sign and 19 digits).
    static let integerRoom = 20

    /// Stores an integer's decimal digits at `out` (room for `integerRoom` bytes) and
    /// returns their length.
    @inline(__always)
    static func storeInteger(_ value: Int64, at out: UnsafeMutablePointer<UInt8>) -> Int {
        var magnitude = value.magnitude
        var count = 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            count += 1
        }
        let negative = value < 0 ? 1 : 0
        if negative == 1 { out[0] = UInt8(ascii: "-") }
        var position = negative + count
        storeDigits(of: &magnitude, count: count, endingAt: &position, in: out)
        return negative + count
    }

    /// "00" "01" ... "99": two digits a lookup. Made once and never freed: a plain
    /// pointer, read without a bounds check or a reference count.
    nonisolated(unsafe) private static let digitPairs: UnsafePointer<UInt8> = {
        let pairs = UnsafeMutablePointer<UInt8>.allocate(capacity: 200)
        for value in 0..<100 {
            pairs[2 * value] = UInt8(ascii: "0") + UInt8(value / 10)
            pairs[2 * value + 1] = UInt8(ascii: "0") + UInt8(value % 10)
        }
        return UnsafePointer(pairs)
    }()

    /// Shortest round-trip text of a double (Swift's own algorithm); always valid JSON
    /// because the pipeline never holds NaN or infinity.
    public static func format(_ double: Double) -> String {
        precondition(double.isFinite, "non-finite number in output")
        return double.description
    }
}
