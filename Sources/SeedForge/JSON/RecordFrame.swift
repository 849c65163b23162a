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
    func render(_ records: ArraySlice<Record>, ids: [FieldID], first: Bool, into writer: inout JSONWriter) {
        precondition(ids.count + 3 == ends.count, "a frame made for \(ends.count - 3) fields renders \(ids.count)")
        let text = self.text.span
        let ends = self.ends.span
        let ids = ids.span
        let closing = ends.count - 1
        let width = (ids.indices.map { ids[$0].index }.max() ?? -1) + 1
        /// Appends piece `index` of the fixed text.
        func piece(_ index: Int, _ writer: inout JSONWriter) {
            let start = index == 0 ? 0 : ends[index - 1]
            text.withUnsafeBufferPointer { writer.append(UnsafeBufferPointer(rebasing: $0[start..<ends[index]])) }
        }
        records.withUnsafeBufferPointer { pointers in
            let records = records.span
            for position in records.indices {
                Record.prefetchValues(of: pointers, at: position + Record.prefetchDistance, width: width)
                if position > 0 || !first { piece(0, &writer) }
                piece(1, &writer)
                let values = records[position].values.span
                for field in ids.indices {
                    piece(2 + field, &writer)
                    let index = ids[field].index
                    if index >= values.count {
                        writer.write(.null)
                    } else if let indent {
                        writer.writePretty(values[index], indent: indent)
                    } else {
                        writer.write(values[index])
                    }
                }
                piece(closing, &writer)
            }
        }
    }
}
