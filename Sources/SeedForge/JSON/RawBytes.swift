/// Bytes written through a pointer into memory reserved ahead: the worst-case size of a
/// piece (a key, a number, a string) is checked once with `reserve`, then its bytes are
/// stored without a check. Appending to a `[UInt8]` checks the array's uniqueness and room
/// at every piece instead (about a tenth of rendering a batch of records).
///
/// Not copyable: the memory is owned by one value and freed with it.
struct RawBytes: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 256)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Makes room for `room` more bytes: the stores after it, up to that many bytes, are
    /// unchecked.
    @inline(__always)
    mutating func reserve(_ room: Int) {
        if capacity &- count < room { grow(to: count + room) }
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        let larger = Swift.max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    /// Where the next byte goes; after writing `n` bytes there, `advance(n)`. Only within
    /// the room `reserve` made.
    @inline(__always)
    var end: UnsafeMutablePointer<UInt8> { base + count }

    @inline(__always)
    mutating func advance(_ written: Int) { count &+= written }

    @inline(__always)
    mutating func store(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    /// Stores bytes read in place; a short piece (a key, a bracket and a comma) byte by
    /// byte, which costs less than a call to `memcpy`.
    @inline(__always)
    mutating func store(_ piece: UnsafeBufferPointer<UInt8>) {
        guard let source = piece.baseAddress else { return }
        let length = piece.count
        if length <= 16 {
            let target = base + count
            for offset in 0..<length { target[offset] = source[offset] }
        } else {
            (base + count).initialize(from: source, count: length)
        }
        count &+= length
    }

    /// Stores bytes `range` of what `source` holds (a value another rendering wrote).
    @inline(__always)
    mutating func store(_ range: Range<Int>, of source: borrowing RawBytes) {
        store(UnsafeBufferPointer(start: source.base + range.lowerBound, count: range.count))
    }

    /// The bytes stored so far.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }
}

/// Values every raw renderer (json, ndjson, csv, the snapshot's lines) stores the same way.
extension RawBytes {
    /// Stores an integer's digits, as the JSON writer writes them.
    @inline(__always)
    mutating func storeInteger(_ int: Int64) {
        reserve(JSONWriter.integerRoom)
        advance(JSONWriter.storeInteger(int, at: end))
    }

    /// Stores a double's shortest round-trip digits in plain notation, as the JSON writer
    /// writes them; false (nothing stored) for one the writer's general path renders.
    @inline(__always)
    mutating func storePlainDecimal(_ double: Double) -> Bool {
        reserve(JSONWriter.plainDecimalRoom)
        let length = JSONWriter.storePlainDecimal(double, at: end)
        guard length > 0 else { return false }
        advance(length)
        return true
    }

    /// Stores a text's UTF-8 bytes as they are (a decimal's digits); false (nothing
    /// stored) when the text keeps no contiguous UTF-8.
    @inline(__always)
    mutating func storeUTF8(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            storeReserving(bytes)
            return true
        } ?? false
    }

    /// Stores `bytes`, making room for them first.
    @inline(__always)
    mutating func storeReserving(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(bytes.count)
        store(bytes)
    }

    /// Stores text that needs no escape as a JSON string (between quotes); false (nothing
    /// stored) for text with a character JSON escapes.
    @inline(__always)
    mutating func storeJSONString(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !JSONWriter.needsEscape(text) else { return false }
        reserve(text.count + 2)
        store(UInt8(ascii: "\""))
        store(text)
        store(UInt8(ascii: "\""))
        return true
    }
}
