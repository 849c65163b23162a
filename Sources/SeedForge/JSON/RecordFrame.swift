/// The fixed text around a record's values in a JSON rendering (the brackets, keys and
/// separators of an NDJSON line, an element of an indented JSON array, a snapshot line),
/// made once per output so that rendering a record only copies these bytes and writes its
/// values.
///
/// Records are rendered by borrowing them: the records, their values and the frame's bytes
/// are read in place (`Span`), so no record, array or key is copied, retained or released
/// per record; a value is handed to the writer as it lies in its record.
struct RecordFrame {
    /// Every piece of fixed text, one after the other.
    private var text: [UInt8] = []
    /// Where each piece ends in `text`: the separator between records, what opens a
    /// record, what comes before each field's value, what closes a record.
    private var ends: [Int] = []
    /// Indentation of values (`JSONWriter.writePretty`), nil for compact values.
    let indent: Int?

    /// - Parameters:
    ///   - separator: written before every record but the file's first.
    ///   - open: written at the start of each record.
    ///   - fields: written before each field's value, in order.
    ///   - close: written after the record's last value.
    init(separator: [UInt8], open: [UInt8], fields: [[UInt8]], close: [UInt8], indent: Int? = nil) {
        self.indent = indent
        for piece in [separator, open] + fields + [close] {
            text += piece
            ends.append(text.count)
        }
    }

    /// Renders `records`, their fields `ids` in order, after whatever `writer` holds;
    /// `first` says whether the first of them is the file's first record (no separator).
    /// A field a record does not reach is null, as `Record[FieldID]` reads it.
    ///
    /// The batch is rendered into raw memory (`RawBytes`: room checked once a piece) and
    /// handed to the writer in one copy.
    func render(_ records: ArraySlice<Record>, ids: [FieldID], first: Bool, into writer: inout JSONWriter) {
        precondition(ids.count + 3 == ends.count, "a frame made for \(ends.count - 3) fields renders \(ids.count)")
        let text = self.text.span
        let ends = self.ends.span
        let ids = ids.span
        let closing = ends.count - 1
        let width = (ids.indices.map { ids[$0].index }.max() ?? -1) + 1
        var out = RawBytes(capacity: records.count * (self.text.count + ids.count * 12))
        // Values the raw path does not write (text to escape, arrays, objects, indented
        // values, numbers outside the plain range) are written by a `JSONWriter` and copied.
        var other = JSONWriter()
        /// Stores piece `index` of the fixed text.
        func piece(_ index: Int, _ out: inout RawBytes) {
            let start = index == 0 ? 0 : ends[index - 1]
            out.reserve(ends[index] - start)
            text.withUnsafeBufferPointer { out.store(UnsafeBufferPointer(rebasing: $0[start..<ends[index]])) }
        }
        records.withUnsafeBufferPointer { pointers in
            let records = records.span
            for position in records.indices {
                Record.prefetchValues(of: pointers, at: position + Record.prefetchDistance, width: width)
                if position > 0 || !first { piece(0, &out) }
                piece(1, &out)
                let values = records[position].values.span
                for field in ids.indices {
                    piece(2 + field, &out)
                    let index = ids[field].index
                    if index >= values.count {
                        Self.store(.null, into: &out, other: &other, indent: nil)
                    } else {
                        Self.store(values[index], into: &out, other: &other, indent: indent)
                    }
                }
                piece(closing, &out)
            }
        }
        out.withBytes { writer.append($0) }
    }

    /// Stores `value` as `JSONWriter.write` (or `writePretty` at `indent`) writes it.
    @inline(__always)
    private static func store(_ value: Value, into out: inout RawBytes, other: inout JSONWriter, indent: Int?) {
        switch value {
        case .string(let string):
            let stored: Bool? = string.utf8.withContiguousStorageIfAvailable { text in
                guard !JSONWriter.needsEscape(text) else { return false }
                out.reserve(text.count + 2)
                out.store(UInt8(ascii: "\""))
                out.store(text)
                out.store(UInt8(ascii: "\""))
                return true
            }
            if stored == true { return }
        case .int(let int):
            out.reserve(JSONWriter.integerRoom)
            out.advance(JSONWriter.storeInteger(int, at: out.end))
            return
        case .double(let double):
            out.reserve(JSONWriter.plainDecimalRoom)
            let length = JSONWriter.storePlainDecimal(double, at: out.end)
            if length > 0 {
                out.advance(length)
                return
            }
        case .decimal(let text):
            let stored: Bool? = text.utf8.withContiguousStorageIfAvailable { text in
                out.reserve(text.count)
                out.store(text)
                return true
            }
            if stored == true { return }
        case .null:
            out.reserve(4)
            for byte in "null".utf8 { out.store(byte) }
            return
        default:
            break
        }
        other.clear()
        if let indent { other.writePretty(value, indent: indent) } else { other.write(value) }
        other.bytes.withUnsafeBufferPointer { written in
            out.reserve(written.count)
            out.store(written)
        }
    }
}
