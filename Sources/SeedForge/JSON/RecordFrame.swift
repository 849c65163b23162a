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
    /// Indentation of each field's value (`JSONWriter.writePretty`), nil for compact
    /// values: a value nested in an object of an output's layout is indented deeper than
    /// one at the record's top level.
    private let indents: [Int?]

    /// - Parameters:
    ///   - separator: written before every record but the file's first.
    ///   - open: written at the start of each record.
    ///   - fields: written before each field's value, in order.
    ///   - close: written after the record's last value.
    ///   - indent: the indentation of every value, nil for compact values.
    init(separator: [UInt8], open: [UInt8], fields: [[UInt8]], close: [UInt8], indent: Int? = nil) {
        self.init(separator: separator, open: open, fields: fields, close: close, indents: fields.map { _ in indent })
    }

    /// A frame whose values are indented field by field: `indents[i]` for the value after
    /// `fields[i]`.
    init(separator: [UInt8], open: [UInt8], fields: [[UInt8]], close: [UInt8], indents: [Int?]) {
        precondition(indents.count == fields.count, "one indentation per field")
        self.indents = indents
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
        var unused = JSONWriter()
        var noBounds: [Int] = []
        render(records, ids: ids, first: first, into: &writer, beside: nil, into: &unused, bounds: &noBounds)
    }

    /// Renders `records` as `render(_:ids:first:into:)` does and appends to `bounds`, for
    /// each record, where its element starts in `writer` (after the separator) and where it
    /// ends: one rendering cut into the files of several outputs (`PagesFormat` beside a
    /// json output of the same records).
    func render(
        _ records: ArraySlice<Record>, ids: [FieldID], first: Bool, into writer: inout JSONWriter,
        bounds: inout [Int]
    ) {
        var unused = JSONWriter()
        render(
            records, ids: ids, first: first, into: &writer, beside: nil, into: &unused, bounds: &bounds, marking: true)
    }

    /// A second, compact rendering of the same records made beside this one (a snapshot
    /// line beside an output's record): `frame` writes, before its field `j`, its own text,
    /// and then the value `sources[j]` says.
    struct Beside {
        /// Where a value of the second rendering comes from.
        enum Source: Equatable {
            /// The bytes this frame wrote for its field at this position, copied.
            case copied(Int)
            /// The record's field with this id, which this frame does not write: rendered.
            case rendered(FieldID)
        }

        let frame: RecordFrame
        let sources: [Source]

        init(frame: RecordFrame, sources: [Source]) {
            precondition(frame.indents.allSatisfy { $0 == nil }, "a rendering beside another is compact")
            precondition(sources.count + 3 == frame.ends.count, "one source for each field of the frame")
            self.frame = frame
            self.sources = sources
        }
    }

    /// Renders `records` as `render(_:ids:first:into:)` does, and, with `beside`, each
    /// record's rendering by `beside.frame` after whatever `besideWriter` holds. A value
    /// both write is read and rendered once: its bytes are copied into the second rendering
    /// (an array or object this frame indents is written again compact, the only values
    /// whose compact and indented texts differ).
    func render(
        _ records: ArraySlice<Record>, ids: [FieldID], first: Bool, into writer: inout JSONWriter, beside: Beside?,
        into besideWriter: inout JSONWriter
    ) {
        var noBounds: [Int] = []
        render(records, ids: ids, first: first, into: &writer, beside: beside, into: &besideWriter, bounds: &noBounds)
    }

    /// Renders `records` as `render(_:ids:first:into:bounds:)` does and each record's
    /// rendering by `beside.frame` as `render(_:ids:first:into:beside:into:)` does: one
    /// rendering cut into several outputs' files with the snapshot's lines beside it.
    func render(
        _ records: ArraySlice<Record>, ids: [FieldID], first: Bool, into writer: inout JSONWriter,
        bounds: inout [Int], beside: Beside, into besideWriter: inout JSONWriter
    ) {
        render(
            records, ids: ids, first: first, into: &writer, beside: beside, into: &besideWriter, bounds: &bounds,
            marking: true)
    }

    /// The one rendering loop; `marking`: each record's start and end (offsets in `writer`)
    /// appended to `bounds`.
    private func render(
        _ records: ArraySlice<Record>, ids: [FieldID], first: Bool, into writer: inout JSONWriter, beside: Beside?,
        into besideWriter: inout JSONWriter, bounds: inout [Int], marking: Bool = false
    ) {
        precondition(ids.count + 3 == ends.count, "a frame made for \(ends.count - 3) fields renders \(ids.count)")
        let rendered = beside?.sources.compactMap { source -> FieldID? in
            if case .rendered(let id) = source { return id } else { return nil }
        }
        let width = Record.prefetchWidth(ids + (rendered ?? []))
        let text = self.text.span
        let ends = self.ends.span
        let ids = ids.span
        let indents = self.indents.span
        let closing = ends.count - 1
        var out = RawBytes(capacity: records.count * (self.text.count + ids.count * 12))
        // Values the raw path does not write (text to escape, arrays, objects, indented
        // values, numbers outside the plain range) are written by a `JSONWriter` and copied.
        var other = JSONWriter()
        let pairing = beside != nil
        let second = beside?.frame ?? self
        let secondText = second.text.span
        let secondEnds = second.ends.span
        let secondClosing = secondEnds.count - 1
        let sourceList = beside?.sources ?? []
        let sources = sourceList.span
        var lines = RawBytes(capacity: pairing ? records.count * (second.text.count + sources.count * 12) : 0)
        /// Where each field's value of the current record lies in `out`.
        var placed = [Range<Int>](repeating: 0..<0, count: pairing ? ids.count : 0)
        // Offsets in `out` become offsets in `writer`.
        let base = writer.bytes.count
        if marking { bounds.reserveCapacity(bounds.count + 2 * records.count) }
        records.withUnsafeBufferPointer { pointers in
            for position in pointers.indices {
                Record.prefetchValues(of: pointers, at: position + Record.prefetchDistance, width: width)
                let separated = position > 0 || !first
                if separated { Self.piece(0, text, ends, &out) }
                if marking { bounds.append(base + out.count) }
                Self.piece(1, text, ends, &out)
                // The row borrowed from the buffer: no retain and release a record.
                Record.withRow(of: pointers, at: position) { row in
                    for field in ids.indices {
                        Self.piece(2 + field, text, ends, &out)
                        let start = out.count
                        Self.store(row, ids[field].index, into: &out, other: &other, indent: indents[field])
                        if pairing { placed[field] = start..<out.count }
                    }
                    Self.piece(closing, text, ends, &out)
                    if marking { bounds.append(base + out.count) }
                    guard pairing else { return }
                    if separated { Self.piece(0, secondText, secondEnds, &lines) }
                    Self.piece(1, secondText, secondEnds, &lines)
                    for slot in sources.indices {
                        Self.piece(2 + slot, secondText, secondEnds, &lines)
                        let field: Int
                        switch sources[slot] {
                        case .copied(let position): field = position
                        case .rendered(let id):
                            Self.store(row, id.index, into: &lines, other: &other, indent: nil)
                            continue
                        }
                        let index = ids[field].index
                        if indents[field] != nil, row.tag(at: index) == .array || row.tag(at: index) == .object {
                            Self.store(row, index, into: &lines, other: &other, indent: nil)
                        } else {
                            let range = placed[field]
                            lines.reserve(range.count)
                            lines.store(range, of: out)
                        }
                    }
                    Self.piece(secondClosing, secondText, secondEnds, &lines)
                }
            }
        }
        out.withBytes { writer.append($0) }
        if pairing { lines.withBytes { besideWriter.append($0) } }
    }

    /// Stores piece `index` of a frame's fixed text.
    @inline(__always)
    private static func piece(_ index: Int, _ text: Span<UInt8>, _ ends: Span<Int>, _ out: inout RawBytes) {
        let start = index == 0 ? 0 : ends[index - 1]
        out.reserve(ends[index] - start)
        text.withUnsafeBufferPointer { out.store(UnsafeBufferPointer(rebasing: $0[start..<ends[index]])) }
    }

    /// Stores the value at `index` of `row` as `JSONWriter.write` (or `writePretty` at
    /// `indent`) writes it: numbers, null and text that needs no escape straight from the
    /// row, anything else as its `Value`.
    @inline(__always)
    private static func store(
        _ row: PackedRow, _ index: Int, into out: inout RawBytes, other: inout JSONWriter, indent: Int?
    ) {
        switch row.tag(at: index) {
        case .null:
            out.reserve(4)
            for byte in "null".utf8 { out.store(byte) }
            return
        case .int:
            out.storeInteger(Int64(bitPattern: row.word(at: index)))
            return
        case .double:
            if out.storePlainDecimal(Double(bitPattern: row.word(at: index))) { return }
        case .string:
            if row.withText(at: index, { out.storeJSONString($0) }) { return }
        case .decimal:
            row.withText(at: index) { out.storeReserving($0) }
            return
        default:
            break
        }
        store(row.value(at: index), into: &out, other: &other, indent: indent)
    }

    /// Stores `value` as `JSONWriter.write` (or `writePretty` at `indent`) writes it.
    @inline(__always)
    private static func store(_ value: Value, into out: inout RawBytes, other: inout JSONWriter, indent: Int?) {
        switch value {
        case .string(let string):
            if string.utf8.withContiguousStorageIfAvailable({ out.storeJSONString($0) }) == true { return }
        case .int(let int):
            out.storeInteger(int)
            return
        case .double(let double):
            if out.storePlainDecimal(double) { return }
        case .decimal(let text):
            if out.storeUTF8(text) { return }
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
