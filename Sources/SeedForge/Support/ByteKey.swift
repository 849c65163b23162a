import Foundation

/// A sort or grouping key encoded as bytes whose byte order is the key's order, so sorting
/// is one `memcmp` per comparison and grouping hashes one buffer.
///
/// Each component is a rank byte then its payload: numbers (rank 0x10) as the IEEE 754
/// bits with the sign flipped (negative numbers inverted), then the exact integer for ties
/// beyond 2^53; text (0x20) as UTF-8 with 0x00 escaped to 0x00 0xFF and ended by 0x00 0x00
/// (folded text: the collation key, then the NFC text); booleans (0x30); other values
/// (0x40) as compact JSON; null (0xF0). A descending component has its bytes inverted,
/// except null, which stays last either way.
public struct ByteKey: Hashable, Comparable, Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// A key read back as the bytes it was encoded to (a key spilled to disk).
    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Empties the key, keeping its storage for the next one.
    public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    public static func == (a: ByteKey, b: ByteKey) -> Bool { a.bytes == b.bytes }

    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    public static func < (a: ByteKey, b: ByteKey) -> Bool {
        a.bytes.withUnsafeBufferPointer { x in
            b.bytes.withUnsafeBufferPointer { y in
                let common = min(x.count, y.count)
                if common > 0 {
                    let order = memcmp(x.baseAddress!, y.baseAddress!, common)
                    if order != 0 { return order < 0 }
                }
                return x.count < y.count
            }
        }
    }

    /// Appends one component.
    public mutating func append(_ value: Value, text order: TextOrder, descending: Bool = false) {
        if value.isNull {
            bytes.append(0xF0)
            return
        }
        let start = bytes.count
        switch value {
        case .int(let int):
            appendNumber(Double(int), exact: int)
        case .double, .decimal:
            let double = value.number ?? 0
            appendNumber(double, exact: double.rounded() == double && abs(double) < 9.2e18 ? Int64(double) : 0)
        case .string(let text):
            bytes.append(0x20)
            if !appendASCII(text, folded: order == .folded) {
                if order == .folded { appendText(Collation.key(text)) }
                appendText(Self.nfc(text))
            }
        case .bool(let bool):
            bytes.append(0x30)
            bytes.append(bool ? 1 : 0)
        default:
            bytes.append(0x40)
            appendText(JSONWriter.compact(value))
        }
        if descending {
            for index in start..<bytes.count { bytes[index] = ~bytes[index] }
        }
    }

    /// Appends a number component (used for timestamps too).
    public mutating func appendNumber(_ double: Double, exact: Int64 = 0) {
        let normalized = double == 0 ? 0.0 : double
        let bits = normalized.bitPattern
        let ordered = normalized.sign == .minus ? ~bits : bits | (1 << 63)
        let biased = UInt64(bitPattern: exact) ^ (1 << 63)
        // The rank and both numbers big-endian, the key grown once.
        grow(by: 17) { out in
            out[0] = 0x10
            UnsafeMutableRawPointer(out + 1).storeBytes(of: ordered.bigEndian, as: UInt64.self)
            UnsafeMutableRawPointer(out + 9).storeBytes(of: biased.bigEndian, as: UInt64.self)
        }
    }

    /// Grows the key by `count` bytes, which `body` writes over zeros: the component is
    /// made in temporary room and appended in one `append` (each `append` checks the
    /// array's uniqueness and room, and a key took several a component: about 180
    /// instructions an ASCII text, callgrind).
    @inline(__always)
    private mutating func grow(by count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { room in
            room.initialize(repeating: 0)
            body(room.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(room))
        }
    }

    /// Text of ASCII letters, digits and punctuation (no NUL): its folded key is its
    /// lower case and its NFC form itself, written straight from its bytes. False for
    /// other text, with nothing written.
    mutating func appendASCII(_ text: String, folded: Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { appendASCII($0, folded: folded) } ?? false
    }

    /// `appendASCII` of the text whose UTF-8 is `utf8`.
    mutating func appendASCII(_ utf8: UnsafeBufferPointer<UInt8>, folded: Bool) -> Bool {
        guard Self.isKeyASCII(utf8) else { return false }
        grow(by: Self.asciiLength(utf8, folded: folded)) { Self.writeASCII(utf8, folded: folded, at: $0) }
        return true
    }

    /// Whether `appendASCII` takes the text: ASCII without NUL.
    @inline(__always)
    private static func isKeyASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in utf8 where byte == 0 || byte >= 0x80 { return false }
        return true
    }

    /// The bytes `writeASCII` writes.
    @inline(__always)
    private static func asciiLength(_ utf8: UnsafeBufferPointer<UInt8>, folded: Bool) -> Int {
        folded ? 2 * utf8.count + 4 : utf8.count + 2
    }

    /// Writes the text component's payload at `out`: for folded text its lower case and
    /// two zeros first, then the text and two zeros (the room already zeroed).
    @inline(__always)
    private static func writeASCII(
        _ utf8: UnsafeBufferPointer<UInt8>, folded: Bool, at out: UnsafeMutablePointer<UInt8>
    ) {
        var at = out
        if folded {
            for byte in utf8 {
                at.pointee = Collation.lowercasedASCII(byte)
                at += 1
            }
            at += 2
        }
        if let base = utf8.baseAddress, !utf8.isEmpty { at.update(from: base, count: utf8.count) }
    }

    /// Appends the text component of field `field` of `record` as `append(record[field],
    /// ...)` would, read in place from its row, when it is ASCII text (see `appendASCII`);
    /// false, with nothing written, for any other value (the caller appends the value).
    mutating func appendASCIIText(
        of record: Record, _ field: FieldID, text order: TextOrder, descending: Bool = false
    )
        -> Bool
    {
        // The row borrowed from the record: a local `unowned(unsafe)` copy of it was still
        // retained and released around each of its calls.
        Record.withRow(of: record) { row in
            guard row.tag(at: field.index) == .string else { return false }
            return row.withText(at: field.index) { appendASCIIText($0, text: order, descending: descending) }
        }
    }

    /// Appends the text component of the string whose UTF-8 is `utf8` as `append(.string(...),
    /// ...)` would, when it is ASCII (see `appendASCII`); false, with nothing written, for
    /// other text. A spilled record's key is made so from its bytes (`Sort`), a record's
    /// from its row (above).
    mutating func appendASCIIText(
        _ utf8: UnsafeBufferPointer<UInt8>, text order: TextOrder, descending: Bool = false
    ) -> Bool {
        guard Self.isKeyASCII(utf8) else { return false }
        let folded = order == .folded
        let length = 1 + Self.asciiLength(utf8, folded: folded)
        grow(by: length) { out in
            out[0] = 0x20
            Self.writeASCII(utf8, folded: folded, at: out + 1)
            if descending {
                for index in 0..<length { out[index] = ~out[index] }
            }
        }
        return true
    }

    mutating func appendText(_ text: String) {
        if !text.utf8.contains(0) {
            bytes.append(contentsOf: text.utf8)
        } else {
            for byte in text.utf8 {
                bytes.append(byte)
                if byte == 0 { bytes.append(0xFF) }
            }
        }
        bytes.append(0)
        bytes.append(0)
    }

    static func nfc(_ text: String) -> String { UnicodeNormalize.nfc(text) }
}
