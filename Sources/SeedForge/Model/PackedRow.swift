/// A record's values packed in one allocation, read in place: a tag byte per value, an
/// 8-byte word per value (an integer, a double's bits, or where a text lies), then the
/// text of every string and decimal (and the encoded bytes of arrays and objects, as
/// `RecordCodec` writes them) one after another.
///
/// Why not an array of `Value`: a city was an array of six 24-byte values (the array's
/// own header, and a separate allocation for each text longer than the 15 bytes Swift
/// stores inline), about 260 bytes in memory against about 55 encoded. Packed, it is one
/// allocation of about 110 bytes, with no reference count but its own, and it is encoded
/// for a spill and decoded back by copying bytes, without making a `String` or an array.
///
/// A row holds `width` slots, of which the first `count` are its values (the rest are
/// null: room for the fields later steps add, so adding one does not reallocate); reading
/// past `count` gives null, as reading past an array of values did.
final class PackedRow: ManagedBuffer<PackedRow.Header, UInt64> {
    struct Header {
        /// Values the row holds (slots past it are null).
        var count: Int32
        /// Slots the row has room for.
        var width: Int32
        /// Bytes of text written (from the text area's start).
        var textEnd: Int32
        /// Bytes the text area has room for.
        var textCapacity: Int32
    }

    typealias Tag = RecordCodec.Tag

    /// Bytes of the tags, rounded up to whole words.
    @inline(__always)
    private static func tagBytes(_ width: Int) -> Int { (width + 7) & ~7 }

    /// Where the text area starts, in bytes from the elements' start.
    @inline(__always)
    private static func textStart(_ width: Int) -> Int { tagBytes(width) + 8 * width }

    /// Bytes `value` takes in the text area.
    private static func textLength(of value: Value) -> Int {
        switch value {
        case .string(let text), .decimal(let text): return text.utf8.count
        case .array, .object: return RecordCodec.encodedLength(of: value)
        default: return 0
        }
    }

    /// A row of `values`, with room for `width` (at least their count) values in all.
    static func make(_ values: [Value], width: Int) -> PackedRow {
        var text = 0
        for value in values { text += textLength(of: value) }
        let row = allocate(width: max(width, values.count), text: text)
        for (index, value) in values.enumerated() { _ = row.replace(at: index, with: value) }
        row.head.pointee.count = Int32(values.count)
        return row
    }

    /// An empty row (count 0) with room for `width` values and `text` bytes of text.
    static func allocate(width: Int, text: Int) -> PackedRow {
        precondition(width < Int(Int32.max) && text < Int(Int32.max) - 8 * width, "a record too large to hold")
        let words = (textStart(width) + text + 7) / 8
        let buffer = create(minimumCapacity: max(words, 1)) { buffer in
            Header(
                count: 0, width: Int32(width), textEnd: 0,
                textCapacity: Int32(min(buffer.capacity * 8 - textStart(width), Int(Int32.max))))
        }
        let row = unsafeDowncast(buffer, to: PackedRow.self)
        row.withUnsafeMutablePointerToElements { words in
            _ = UnsafeMutableRawPointer(words).initializeMemory(as: UInt8.self, repeating: 0, count: textStart(width))
        }
        return row
    }

    /// The header, read and written through its address: `ManagedBuffer.header` checks
    /// exclusive access at run time on every use (2-4% of a run's CPU in a profile). The
    /// address outlives the closure that gives it, which is sound here: a row's header
    /// never moves, and every use is inside a method of the row (or of a caller holding
    /// the record), so the row is alive.
    @inline(__always)
    fileprivate var head: UnsafeMutablePointer<Header> { withUnsafeMutablePointerToHeader { $0 } }

    /// A row of the values `tags` and `words` give (as a row holds them, with the texts'
    /// places in `text`), with room for `width` values in all and `extraText` more bytes
    /// of text. The texts are copied in the order of their values; a text of `text` no
    /// value points at is left out.
    static func pack(
        tags: UnsafeBufferPointer<UInt8>, words: UnsafeBufferPointer<UInt64>, text: UnsafeBufferPointer<UInt8>,
        width: Int, extraText: Int = 0
    ) -> PackedRow {
        let count = tags.count
        let width = max(width, count)
        var textBytes = 0
        for index in 0..<count where Tag(rawValue: tags[index])!.hasText {
            textBytes += Int(words[index] & 0xFFFF_FFFF)
        }
        let row = allocate(width: width, text: textBytes + extraText)
        let start = textStart(width)
        row.withUnsafeMutablePointerToElements { elements in
            let base = UnsafeMutableRawPointer(elements)
            base.copyMemory(from: tags.baseAddress!, byteCount: count)
            let slots = elements + tagBytes(width) / 8
            var end = 0
            for index in 0..<count {
                let word = words[index]
                let tag = Tag(rawValue: tags[index])!
                guard tag.hasText else {
                    // A null or a boolean has no word (the builder may hold an old one).
                    slots[index] = tag == .int || tag == .double ? word : 0
                    continue
                }
                let length = Int(word & 0xFFFF_FFFF)
                if length > 0 {
                    (base + start + end).copyMemory(from: text.baseAddress! + Int(word >> 32), byteCount: length)
                }
                slots[index] = UInt64(end) << 32 | UInt64(length)
                end += length
            }
            row.head.pointee.textEnd = Int32(end)
        }
        row.head.pointee.count = Int32(count)
        return row
    }

    var count: Int { Int(head.pointee.count) }
    var width: Int { Int(head.pointee.width) }

    // MARK: Reading in place

    /// The tag of the value at `index` (null past the row's values).
    @inline(__always)
    func tag(at index: Int) -> Tag {
        guard index < Int(head.pointee.count) else { return .null }
        return withUnsafeMutablePointerToElements { words in
            // Only tags are written there (`store`, zeros for null): read as one, unchecked.
            UnsafeRawPointer(words).load(fromByteOffset: index, as: Tag.self)
        }
    }

    /// The word of the value at `index` (an integer, a double's bits, or where its text lies).
    @inline(__always)
    func word(at index: Int) -> UInt64 {
        assert(index < width, "a word past the row's slots")
        return withUnsafeMutablePointerToElements { words in words[Self.tagBytes(Int(head.pointee.width)) / 8 + index] }
    }

    /// Calls `body` with the bytes of the text at `index` (a string's or decimal's UTF-8,
    /// an array's or object's encoding), valid only inside `body`.
    @inline(__always)
    func withText<R>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        assert(tag(at: index).hasText, "the text of a value that has none")
        let place = word(at: index)
        let width = Int(head.pointee.width)
        return try withUnsafeMutablePointerToElements { words in
            let start = UnsafeRawPointer(words).advanced(by: Self.textStart(width) + Int(place >> 32))
                .assumingMemoryBound(to: UInt8.self)
            return try body(UnsafeBufferPointer(start: start, count: Int(place & 0xFFFF_FFFF)))
        }
    }

    /// The value at `index`, made (null past the row's values).
    @inline(__always)
    func value(at index: Int) -> Value {
        let tag = tag(at: index)
        switch tag {
        case .int, .double: return Self.value(tag, word(at: index), text: UnsafeBufferPointer(start: nil, count: 0))
        case .string, .decimal, .array, .object: return withText(at: index) { Self.value(tag, 0, text: $0) }
        // (Null past the row's values too: no word is read there.)
        case .null, .false, .true: return Self.value(tag, 0, text: UnsafeBufferPointer(start: nil, count: 0))
        }
    }

    /// The value a slot of `tag` holds: `word` for a number, `text` for a value with text
    /// (a row's and a `RowBuilder`'s slots alike).
    @inline(__always)
    static func value(_ tag: Tag, _ word: UInt64, text: UnsafeBufferPointer<UInt8>) -> Value {
        switch tag {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .int: return .int(Int64(bitPattern: word))
        case .double: return .double(Double(bitPattern: word))
        case .string: return .string(String(decoding: text, as: UTF8.self))
        case .decimal: return .decimal(String(decoding: text, as: UTF8.self))
        case .array, .object:
            var reader = RecordCodec.Reader(text)
            return reader.value()
        }
    }

    /// Calls `body` with the slot `value` takes: its tag, its word (a number's bits; 0 for
    /// a value with text or none) and its text (a string's or decimal's UTF-8, an array's
    /// or object's codec bytes; nil for a value without), the same for a row and a
    /// `RowBuilder`.
    @inline(__always)
    static func slot<R>(of value: Value, _ body: (Tag, UInt64, UnsafeBufferPointer<UInt8>?) -> R) -> R {
        switch value {
        case .null: return body(.null, 0, nil)
        case .bool(let flag): return body(flag ? .true : .false, 0, nil)
        case .int(let number): return body(.int, UInt64(bitPattern: number), nil)
        case .double(let number): return body(.double, number.bitPattern, nil)
        case .string(var text): return text.withUTF8 { body(.string, 0, $0) }
        case .decimal(var text): return text.withUTF8 { body(.decimal, 0, $0) }
        case .array, .object:
            var bytes: [UInt8] = []
            RecordCodec.encode(value, into: &bytes)
            return bytes.withUnsafeBufferPointer { body(Tag(rawValue: bytes[0])!, 0, $0) }
        }
    }

    /// Every value, made.
    func values() -> [Value] {
        (0..<count).map { value(at: $0) }
    }

    // MARK: Writing

    /// Sets the value at `index` in place when the row has room for it (a slot, and for a
    /// text, the bytes the slot's text held or room after the texts); false otherwise,
    /// and the row is unchanged. Only for a row nothing else refers to.
    func replace(at index: Int, with value: Value) -> Bool {
        guard index < width else { return false }
        return Self.slot(of: value) { tag, word, text in
            var word = word
            if let text {
                guard let placed = place(text: text, at: index) else { return false }
                word = placed
            }
            store(tag, word, at: index)
            return true
        }
    }

    /// Sets the value at `index` to the string whose UTF-8 is `utf8`, in place as
    /// `replace(at:with:)` does; false, the row unchanged, when there is no room. `utf8`
    /// must not lie in this row.
    func replaceText(at index: Int, with utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard index < width, let word = place(text: utf8, at: index) else { return false }
        store(.string, word, at: index)
        return true
    }

    /// Writes `text` where the slot at `index` held its text (when it is no longer) or
    /// after the texts, and returns the slot's word; nil when there is no room.
    private func place(text: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt64? {
        var offset: Int
        if index < count, tag(at: index).hasText, Int(word(at: index) & 0xFFFF_FFFF) >= text.count {
            offset = Int(word(at: index) >> 32)
        } else {
            offset = Int(head.pointee.textEnd)
            guard text.count <= Int(head.pointee.textCapacity) - offset else { return nil }
            head.pointee.textEnd = Int32(offset + text.count)
        }
        let start = Self.textStart(Int(head.pointee.width))
        withUnsafeMutablePointerToElements { words in
            if let base = text.baseAddress, !text.isEmpty {
                (UnsafeMutableRawPointer(words) + start + offset).copyMemory(from: base, byteCount: text.count)
            }
        }
        return UInt64(offset) << 32 | UInt64(text.count)
    }

    @inline(__always)
    private func store(_ tag: Tag, _ word: UInt64, at index: Int) {
        let width = Int(head.pointee.width)
        withUnsafeMutablePointerToElements { words in
            UnsafeMutableRawPointer(words).storeBytes(of: tag.rawValue, toByteOffset: index, as: UInt8.self)
            words[Self.tagBytes(width) / 8 + index] = word
        }
        if index >= Int(head.pointee.count) { head.pointee.count = Int32(index + 1) }
    }

    /// A copy of this row with `value` at `index` (and room for it).
    func copy(setting index: Int, to value: Value) -> PackedRow {
        let width = max(Int(head.pointee.width), index + 1)
        let row = PackedRow.allocate(width: width, text: Int(head.pointee.textEnd) + Self.textLength(of: value))
        row.copyValues(from: self)
        let placed = row.replace(at: index, with: value)
        precondition(placed, "a row made with room for a value has no room for it")
        return row
    }

    /// Copies the values of `other` (which must fit: this row's width and text room at
    /// least `other`'s) into this empty row.
    private func copyValues(from other: PackedRow) {
        let count = other.count
        let otherWidth = other.width
        let width = self.width
        let textBytes = Int(other.head.pointee.textEnd)
        other.withUnsafeMutablePointerToElements { from in
            withUnsafeMutablePointerToElements { to in
                let source = UnsafeRawPointer(from)
                let target = UnsafeMutableRawPointer(to)
                target.copyMemory(from: source, byteCount: count)
                (target + Self.tagBytes(width)).copyMemory(
                    from: source + Self.tagBytes(otherWidth), byteCount: 8 * count)
                (target + Self.textStart(width)).copyMemory(
                    from: source + Self.textStart(otherWidth), byteCount: textBytes)
            }
        }
        head.pointee.count = Int32(count)
        head.pointee.textEnd = Int32(textBytes)
    }

    /// Bytes the row takes in memory: its allocation and the allocator's word before it.
    var allocatedBytes: Int { 16 + MemoryLayout<Header>.stride + capacity * 8 + 8 }

    // MARK: As RecordCodec bytes

    /// Appends the row's values as `RecordCodec` writes a record's values: their count
    /// (trailing nulls dropped), then each value's tag and payload.
    func encodeValues(into bytes: inout [UInt8]) {
        var last = count
        while last > 0, tag(at: last - 1) == .null { last -= 1 }
        RecordCodec.appendVarint(UInt64(last), to: &bytes)
        for index in 0..<last {
            let tag = tag(at: index)
            switch tag {
            case .null, .false, .true:
                bytes.append(tag.rawValue)
            case .int:
                bytes.append(tag.rawValue)
                let number = Int64(bitPattern: word(at: index))
                RecordCodec.appendVarint(UInt64(bitPattern: (number << 1) ^ (number >> 63)), to: &bytes)
            case .double:
                bytes.append(tag.rawValue)
                RecordCodec.appendWord(word(at: index), to: &bytes)
            case .string, .decimal:
                bytes.append(tag.rawValue)
                withText(at: index) { text in
                    RecordCodec.appendVarint(UInt64(text.count), to: &bytes)
                    bytes.append(contentsOf: text)
                }
            case .array, .object:
                // Stored as the codec writes them, tag included.
                withText(at: index) { bytes.append(contentsOf: $0) }
            }
        }
    }

    /// A row of the `count` values `reader` is at (as `encodeValues` wrote them after
    /// their count), holding `width` values at least; with `reading`, only the values it marks are
    /// kept (the others are null). Texts are copied as bytes: no `String` is made.
    static func decode(
        _ reader: inout RecordCodec.Reader, count: Int, width: Int, reading: [Bool]? = nil
    ) -> PackedRow {
        let row = allocate(width: max(width, count), text: textRoom(reader, count: count, reading: reading))
        row.fill(&reader, count: count, width: width, reading: reading)
        return row
    }

    /// `decode` into `row` itself when no one else holds it and it has the same width and
    /// room for the texts (its values cleared first: the same row as a new one but for
    /// the room it has), else into a new row put in its place. A reader that decodes batch
    /// after batch (the outputs of a spilled sort) so keeps the rows of the batch before
    /// instead of freeing each on the calling thread and allocating another (glibc's
    /// `free` and `malloc` were about a tenth of the outputs' samples at 5M cities under
    /// 512 MiB).
    static func decode(
        _ reader: inout RecordCodec.Reader, count: Int, width: Int, reading: [Bool]?, into row: inout PackedRow
    ) {
        let text = textRoom(reader, count: count, reading: reading)
        if isKnownUniquelyReferenced(&row), row.width == max(width, count), Int(row.head.pointee.textCapacity) >= text {
            row.clear()
        } else {
            row = allocate(width: max(width, count), text: text)
        }
        row.fill(&reader, count: count, width: width, reading: reading)
    }

    /// Empties the row as `allocate` leaves a new one: no values, every tag and slot zero,
    /// no text.
    private func clear() {
        let start = Self.textStart(width)
        withUnsafeMutablePointerToElements { words in
            _ = UnsafeMutableRawPointer(words).initializeMemory(as: UInt8.self, repeating: 0, count: start)
        }
        head.pointee.count = 0
        head.pointee.textEnd = 0
    }

    /// The bytes of text the `count` values `reader` is at take in a row (with `reading`,
    /// only those of the values it marks).
    private static func textRoom(_ reader: RecordCodec.Reader, count: Int, reading: [Bool]?) -> Int {
        var scan = reader
        var text = 0
        for field in 0..<count {
            let start = scan.position
            let tag = Tag(rawValue: scan.bytes[start])
            if tag == .string || tag == .decimal {
                scan.position += 1
                let length = Int(scan.varint())
                scan.position += length
                if reading.map({ field < $0.count && $0[field] }) ?? true { text += length }
            } else {
                scan.skipValue()
                if tag == .array || tag == .object, reading.map({ field < $0.count && $0[field] }) ?? true {
                    text += scan.position - start
                }
            }
        }
        return text
    }

    /// Reads the `count` values `reader` is at into this empty row (room made by
    /// `textRoom`), as `decode` describes.
    private func fill(_ reader: inout RecordCodec.Reader, count: Int, width: Int, reading: [Bool]?) {
        let row = self
        let bytes = reader.bytes
        for field in 0..<count {
            let start = reader.position
            let tag = Tag(rawValue: bytes[start])!
            let wanted = reading.map { field < $0.count && $0[field] } ?? true
            reader.position += 1
            var word: UInt64 = 0
            switch tag {
            case .null, .false, .true: break
            case .int:
                let zigzag = reader.varint()
                word = UInt64(bitPattern: Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            case .double:
                word = reader.word()
            case .string, .decimal:
                let length = Int(reader.varint())
                let textStart = reader.position
                reader.position += length
                if wanted {
                    word = row.place(
                        text: UnsafeBufferPointer(rebasing: bytes[textStart..<reader.position]), at: field)!
                }
            case .array, .object:
                reader.position = start
                reader.skipValue()
                if wanted {
                    word = row.place(text: UnsafeBufferPointer(rebasing: bytes[start..<reader.position]), at: field)!
                }
            }
            if wanted { row.store(tag, word, at: field) }
        }
        // The schema's width given back, as before the trailing nulls were dropped.
        row.head.pointee.count = Int32(max(width, count))
    }
}

extension RecordCodec.Tag {
    /// Whether a value of this tag keeps bytes in a row's text area.
    var hasText: Bool {
        switch self {
        case .string, .decimal, .array, .object: return true
        default: return false
        }
    }
}
