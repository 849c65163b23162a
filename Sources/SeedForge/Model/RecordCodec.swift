/// Records as compact bytes, for records spilled to disk under a memory limit: a value is a
/// tag byte and its payload (integers as zigzag varints, text as its UTF-8 bytes with a
/// length), provenance is four small integers (the source file's number in the run,
/// the record's byte offset, its index, and for an unnested element its parent's offset). No reference counting, no per-value heap
/// object: a city takes about 70 bytes instead of about 220 as an array of `Value`.
/// `decode(encode(r))` gives back `r` exactly (value for value, kind for kind).
struct RecordCodec {
    /// The run's source files, numbered in the order they were read: an origin is written
    /// as its file's number.
    let sources: [SourceText]
    private let numbers: [ObjectIdentifier: Int]

    init(sources: [SourceText]) {
        self.sources = sources
        var numbers: [ObjectIdentifier: Int] = [:]
        for (number, source) in sources.enumerated() { numbers[ObjectIdentifier(source)] = number }
        self.numbers = numbers
    }

    enum Tag: UInt8 {
        case null = 0
        case `false`, `true`, int, double, decimal, string, array, object
    }

    // MARK: Encoding

    func encode(_ record: Record, into bytes: inout [UInt8]) {
        let source = ObjectIdentifier(record.origin.source)
        // A run of one source file (most runs past the limit: one large dump) numbers it
        // without hashing (the dictionary's hash was 0.3% of the 1M reference job's
        // instructions under a 64 MiB limit).
        guard let number = sources.count == 1 && source == ObjectIdentifier(sources[0]) ? 0 : numbers[source] else {
            preconditionFailure("a record whose source file is not one the run read")
        }
        Self.appendVarint(UInt64(number), to: &bytes)
        Self.appendVarint(UInt64(record.origin.offset), to: &bytes)
        Self.appendVarint(UInt64(record.origin.index), to: &bytes)
        // The record it was unnested from, if any: 0 for none, else its offset + 1.
        Self.appendVarint(UInt64(record.origin.parentOffset + 1), to: &bytes)
        // Trailing nulls (room left for fields later steps add) cost nothing.
        record.row.encodeValues(into: &bytes)
    }

    /// Bytes `encode(_:into:)` writes for `value`.
    static func encodedLength(of value: Value) -> Int {
        switch value {
        case .null, .bool: return 1
        case .int(let number): return 1 + varintLength(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
        case .double: return 9
        case .decimal(let text), .string(let text):
            let count = text.utf8.count
            return 1 + varintLength(UInt64(count)) + count
        case .array(let elements):
            return elements.reduce(1 + varintLength(UInt64(elements.count))) { $0 + encodedLength(of: $1) }
        case .object(let object):
            return object.pairs.reduce(1 + varintLength(UInt64(object.count))) { total, pair in
                let key = pair.0.utf8.count
                return total + varintLength(UInt64(key)) + key + encodedLength(of: pair.1)
            }
        }
    }

    static func encode(_ value: Value, into bytes: inout [UInt8]) {
        switch value {
        case .null:
            bytes.append(Tag.null.rawValue)
        case .bool(let flag):
            bytes.append(flag ? Tag.true.rawValue : Tag.false.rawValue)
        case .int(let number):
            bytes.append(Tag.int.rawValue)
            appendVarint(UInt64(bitPattern: (number << 1) ^ (number >> 63)), to: &bytes)
        case .double(let number):
            bytes.append(Tag.double.rawValue)
            appendWord(number.bitPattern, to: &bytes)
        case .decimal(let text):
            bytes.append(Tag.decimal.rawValue)
            appendText(text, to: &bytes)
        case .string(let text):
            bytes.append(Tag.string.rawValue)
            appendText(text, to: &bytes)
        case .array(let elements):
            bytes.append(Tag.array.rawValue)
            appendVarint(UInt64(elements.count), to: &bytes)
            for element in elements { encode(element, into: &bytes) }
        case .object(let object):
            bytes.append(Tag.object.rawValue)
            appendVarint(UInt64(object.count), to: &bytes)
            for (key, element) in object.pairs {
                appendText(key, to: &bytes)
                encode(element, into: &bytes)
            }
        }
    }

    static func appendText(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    /// A double's 8 bytes, little-endian: appended one by one (through `append(contentsOf:)`
    /// the generic copy cost more than the bytes).
    @inline(__always) static func appendWord(_ word: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word &>> shift)) }
    }

    /// A number below 128 is one byte, appended in line.
    @inline(__always) static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        if value < 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value))
        } else {
            appendLongVarint(value, to: &bytes)
        }
    }

    @inline(never) private static func appendLongVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Bytes `appendVarint` writes for `value`.
    static func varintLength(_ value: UInt64) -> Int {
        var value = value
        var length = 1
        while value >= 0x80 {
            value >>= 7
            length += 1
        }
        return length
    }

    // MARK: Decoding

    /// Reads encoded records from `bytes`, one after another.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int

        init(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int = 0) {
            self.bytes = bytes
            self.position = position
        }

        var atEnd: Bool { position >= bytes.count }

        /// 8 bytes, little-endian (a double's bits): one bounds check and one load.
        @inline(__always) mutating func word() -> UInt64 {
            precondition(position >= 0 && position + 8 <= bytes.count, "an encoded record cut short")
            let word = UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self)
            position += 8
            return UInt64(littleEndian: word)
        }

        /// A number of one byte (below 128: a record's field count and source number, most
        /// texts' lengths) is read in line; a longer one (an offset in a large file, most
        /// ids) through a call.
        /// Called for each, the read was 37 instructions a number, 2.4% of the instructions
        /// of the 1M reference job under a 64 MiB limit (its records spilled and read back).
        @inline(__always) mutating func varint() -> UInt64 {
            let first = bytes[position]
            guard first >= 0x80 else {
                position += 1
                return UInt64(first)
            }
            return longVarint()
        }

        @inline(never) private mutating func longVarint() -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = bytes[position]
                position += 1
                result |= UInt64(byte & 0x7F) &<< shift
                if byte < 0x80 { return result }
                shift &+= 7
            }
        }

        mutating func text() -> String {
            let count = Int(varint())
            let start = position
            position += count
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        }

        mutating func value() -> Value {
            let tag = Tag(rawValue: bytes[position])
            position += 1
            switch tag {
            case .null?: return .null
            case .false?: return .bool(false)
            case .true?: return .bool(true)
            case .int?:
                let zigzag = varint()
                return .int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            case .double?:
                return .double(Double(bitPattern: word()))
            case .decimal?: return .decimal(text())
            case .string?: return .string(text())
            case .array?:
                let count = Int(varint())
                var elements: [Value] = []
                elements.reserveCapacity(count)
                for _ in 0..<count { elements.append(value()) }
                return .array(elements)
            case .object?:
                let count = Int(varint())
                var object = JSONObject()
                for _ in 0..<count {
                    let key = text()
                    object.appendUnchecked(key, value())
                }
                return .object(object)
            case nil:
                preconditionFailure("a spilled record holds an unknown value tag")
            }
        }

        /// Moves past one varint without making its value.
        @inline(__always) mutating func skipVarint() {
            while bytes[position] >= 0x80 { position += 1 }
            position += 1
        }

        /// `skipValue` with the scalar tags (every value of a flat record) handled in line
        /// and only arrays and objects through the recursive `skipValue`: a record's values
        /// skipped without a call each (`RecordCodec.starts` on the calling thread was about
        /// a tenth of the spilled sort's samples, 5M cities under 512 MiB).
        @inline(__always) mutating func skipValueInline() {
            let tag = bytes[position]
            if tag <= Tag.true.rawValue {
                position += 1
            } else if tag == Tag.int.rawValue {
                position += 1
                skipVarint()
            } else if tag == Tag.double.rawValue {
                position += 9
            } else if tag == Tag.string.rawValue || tag == Tag.decimal.rawValue {
                position += 1
                let length = bytes[position]
                if length < 0x80 {
                    position += 1 + Int(length)
                } else {
                    position += Int(varint())
                }
            } else {
                skipValue()
            }
        }

        /// Moves past one value without making it (no allocation).
        mutating func skipValue() {
            let tag = Tag(rawValue: bytes[position])
            position += 1
            switch tag {
            case .null?, .false?, .true?: return
            case .int?: _ = varint()
            case .double?: position += 8
            case .decimal?, .string?: position += Int(varint())
            case .array?:
                for _ in 0..<Int(varint()) { skipValue() }
            case .object?:
                for _ in 0..<Int(varint()) {
                    position += Int(varint())
                    skipValue()
                }
            case nil:
                preconditionFailure("a spilled record holds an unknown value tag")
            }
        }

        /// Moves past one record without making it.
        mutating func skipRecord() {
            for _ in 0..<Head.skip(&self) { skipValueInline() }
        }
    }

    /// Where each of the `count` records of `bytes` starts, and (last) where the bytes
    /// end: a batch split at record boundaries without decoding it, so that it can be
    /// decoded in parallel or its records moved as bytes.
    static func starts(_ bytes: UnsafeBufferPointer<UInt8>, count: Int) -> [Int] {
        // Written in place: no capacity or uniqueness check per record.
        [Int](unsafeUninitializedCapacity: count + 1) { starts, initialized in
            var reader = Reader(bytes)
            for index in 0..<count {
                starts.initializeElement(at: index, to: reader.position)
                reader.skipRecord()
            }
            starts.initializeElement(at: count, to: reader.position)
            initialized = count + 1
        }
    }

    /// Calls `body` with where the first `count` values of the record `bytes` hold (as
    /// `encode` wrote it) lie: `offsets[i]` is the position in `bytes` of value `i`'s tag,
    /// or -1 past the record's values (a null, as a decoded record reads there). Nothing
    /// is made: a key of a few fields is read from a spilled record's bytes in place
    /// (`Sort`), where decoding the record allocated and freed a row for each. The offsets
    /// live on the stack, valid only inside `body`.
    static func withValueOffsets<R>(
        of bytes: UnsafeBufferPointer<UInt8>, count: Int, _ body: (UnsafeBufferPointer<Int>) throws -> R
    ) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, count)) { offsets in
            var reader = Reader(bytes)
            let values = min(count, Head.skip(&reader))
            for index in 0..<values {
                offsets[index] = reader.position
                // The last value wanted need not be skipped.
                if index + 1 < values { reader.skipValueInline() }
            }
            for index in values..<count { offsets[index] = -1 }
            return try body(UnsafeBufferPointer(rebasing: offsets[0..<count]))
        }
    }

    /// The next record of `reader`, with room for `width` values (its schema's fields).
    /// With `reading`, only the fields it marks are made (the others are null): a step
    /// that reads a few fields of each record (a sort or dedupe key) skips the rest.
    func decode(_ reader: inout Reader, width: Int, reading: [Bool]? = nil) -> Record {
        let head = Head(&reader)
        let row = PackedRow.decode(&reader, count: head.count, width: width, reading: reading)
        return Record(row: row, origin: origin(head))
    }

    /// `decode` into `record`, whose row is reused when the record holds it alone and it
    /// has the room (`PackedRow.decode(_:count:width:reading:into:)`): the same record as
    /// a new one.
    func decode(_ reader: inout Reader, width: Int, reading: [Bool]? = nil, over record: inout Record) {
        let head = Head(&reader)
        PackedRow.decode(&reader, count: head.count, width: width, reading: reading, into: &record.row)
        record.origin = origin(head)
    }

    /// What an encoded record starts with: its origin as numbers, and its value count.
    private struct Head {
        let source: Int
        let offset: Int
        let index: Int
        let parentOffset: Int
        let count: Int

        init(_ reader: inout Reader) {
            source = Int(reader.varint())
            offset = Int(reader.varint())
            index = Int(reader.varint())
            parentOffset = Int(reader.varint()) - 1
            count = Int(reader.varint())
        }

        /// Moves past a record's head without making its origin; returns its value count.
        @inline(__always) static func skip(_ reader: inout Reader) -> Int {
            for _ in 0..<4 { reader.skipVarint() }
            return Int(reader.varint())
        }
    }

    /// The origin `head` names. Taken once the row is decoded: a source taken before the
    /// row's decode was retained across that call and released after it, every thread
    /// counting on the same object.
    private func origin(_ head: Head) -> Origin {
        Origin(source: sources[head.source], offset: head.offset, index: head.index, parentOffset: head.parentOffset)
    }

    /// Every record of `bytes` (as `encode` wrote them one after another); a large batch
    /// is split at its record boundaries and decoded on every core, in order.
    /// With `reading`, only the fields it marks are made (see `decode`).
    func decodeAll(
        _ bytes: [UInt8], count: Int, width: Int, threads: Threads? = nil, reading: [Bool]? = nil
    ) -> [Record] {
        bytes.withUnsafeBufferPointer { decodeAll($0, count: count, width: width, threads: threads, reading: reading) }
    }

    /// Every record of `buffer` (see the array's `decodeAll`).
    func decodeAll(
        _ buffer: UnsafeBufferPointer<UInt8>, count: Int, width: Int, threads: Threads? = nil,
        reading: [Bool]? = nil
    ) -> [Record] {
        guard let threads, threads.count > 1, count >= 8_192 else {
            var records: [Record] = []
            records.reserveCapacity(count)
            var reader = Reader(buffer)
            while !reader.atEnd { records.append(decode(&reader, width: width, reading: reading)) }
            return records
        }
        let starts = Self.starts(buffer, count: count)
        let pieces = max(1, min(threads.count, count / 4_096))
        return Self.filled(count) { records in
            _ = threads.run(pieces) { piece in
                let range = (count * piece / pieces)..<(count * (piece + 1) / pieces)
                var reader = Reader(buffer, at: starts[range.lowerBound])
                decode(&reader, count: range.count, width: width, reading: reading, into: records + range.lowerBound)
            }
        }
    }

    /// Decodes the next `count` records of `reader` into uninitialized memory at
    /// `records`. Pieces of a batch decoded side by side each fill their own range of the
    /// batch's array: gathered from arrays of their own, every record was copied into the
    /// batch (a retain) and the pieces then released (a release), each a cache miss on the
    /// record's row. In the outputs of the 5M reference job under `--memory-limit 512MiB`
    /// that copy was 42 of the calling thread's 1,360 samples, and the retains are gone.
    func decode(
        _ reader: inout Reader, count: Int, width: Int, reading: [Bool]?, into records: UnsafeMutablePointer<Record>
    ) {
        for index in 0..<count { (records + index).initialize(to: decode(&reader, width: width, reading: reading)) }
    }

    /// Decodes the next `count` records of `reader` over the records at `records` (each
    /// reusing its row when it can: `decode(_:width:reading:over:)`).
    func decode(
        _ reader: inout Reader, count: Int, width: Int, reading: [Bool]?, over records: UnsafeMutablePointer<Record>
    ) {
        // The rows are those of the batch before, all over the heap: each is asked for a few
        // records ahead (its reference count checked and its slots cleared waited on memory
        // at every record, about a tenth of the outputs' samples at 5M cities).
        let places = UnsafeBufferPointer(start: records, count: count)
        for index in 0..<count {
            Record.prefetchValues(of: places, at: index + Record.prefetchDistance, width: width)
            decode(&reader, width: width, reading: reading, over: &records[index])
        }
    }

    /// An array of `count` records that `fill` initializes, every one of them, in place
    /// (from threads side by side: the pointer is shared, each writes its own range).
    static func filled(_ count: Int, _ fill: (UnsafeMutablePointer<Record>) -> Void) -> [Record] {
        [Record](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { fill(buffer.baseAddress!) }
            initialized = count
        }
    }
}
