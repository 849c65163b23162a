/// `format: csv`: RFC 4180: a header row of field names, CRLF line ends, a cell quoted when
/// it holds a comma, a quote, CR or LF (quotes doubled). Text cells that start with
/// `=`, `+`, `-`, `@`, tab or CR are prefixed with `'` so a spreadsheet shows them as text
/// instead of running them as formulas (on by default; `neutralise-formulas: false` turns
/// it off for the file, `plain-fields: [phone]` for some fields, such as phone numbers
/// `+1-604-…` that an app reads back); numbers are written as numbers and never altered.
/// Null is an empty cell; arrays and objects are compact JSON.
public struct CSVFormat: SingleFileFormat {
    public static let spec = KindSpec(
        stage: .emit, name: "csv",
        summary: "RFC 4180 CSV with a header row; text cells neutralised against formula injection.",
        keys: OutputKeys.common + [
            OutputKeys.filter,
            KeySpec(
                "neutralise-formulas",
                "prefix ' to text cells starting with = + - @ tab or CR so spreadsheets do not run them (default true)"),
            KeySpec(
                "plain-fields",
                "fields whose text is written as it is even when neutralising, e.g. [phone] for +1-604-555-0100"),
        ],
        details: #"""
            RFC 4180: a header row, CRLF line ends, cells quoted when they contain a comma, quote, CR
            or LF. Text cells starting with `=`, `+`, `-`, `@`, tab or CR get a leading `'` so
            spreadsheets do not run them as formulas; numbers are never altered. Null is an empty
            cell; arrays and objects are compact JSON. The guard is on by default; text that an app
            reads back as it is, such as phone numbers (`+1-604-555-0100` would become
            `'+1-604-555-0100`), can be left plain with `plain-fields`, or the guard turned off with
            `neutralise-formulas: false` for files no one opens in a spreadsheet. `plain-fields`
            together with `neutralise-formulas: false` is a definition error.
            """#,
        example: """
            - file: contacts.csv                 # for a phone app: +1-604-555-0142 stays as it is
              collection: shops
              fields: [id, name, phone, note]
              plain-fields: [phone]
            """)
    public static let extensions = ["csv"]

    /// Whether text cells are neutralised at all, and the fields left plain.
    let neutralise: Bool
    let plainFields: Set<FieldID>

    public init() {
        neutralise = true
        plainFields = []
    }

    init(neutralise: Bool, plainFields: Set<FieldID>) {
        self.neutralise = neutralise
        self.plainFields = plainFields
    }

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        neutralise = try config.bool("neutralise-formulas") ?? true
        plainFields =
            try config["plain-fields"] == nil ? [] : Set(plan.fields(config, key: "plain-fields", in: collection))
        if !neutralise, let node = config["plain-fields"] {
            throw node.error(
                "'plain-fields' has no effect with 'neutralise-formulas: false' (every field is plain); remove one of them"
            )
        }
    }

    public func head(count: Int, fields: [FieldSpec]) -> [UInt8] {
        var out: [UInt8] = []
        appendRow(fields.map { Self.quote($0.name) }, to: &out)
        return out
    }

    public func render(_ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID], first: Bool) -> [UInt8] {
        let neutralisedFields = ids.map { neutralise && !plainFields.contains($0) }
        let neutralised = neutralisedFields.span
        let width = Record.prefetchWidth(ids)
        let ids = ids.span
        // Records and values are read in place (see `RecordFrame`), each cell stored
        // straight into raw memory (room checked once a cell): the same text as `cell`,
        // without a `String` a cell; the batch reaches the writer in one copy.
        var out = RawBytes(capacity: records.count * (ids.count * 12 + 2))
        var other = JSONWriter()
        records.withUnsafeBufferPointer { pointers in
            for position in pointers.indices {
                Record.prefetchValues(of: pointers, at: position + Record.prefetchDistance, width: width)
                out.reserve(ids.count + 2)
                // The row borrowed from the buffer: no retain and release a record.
                Record.withRow(of: pointers, at: position) { row in
                    for field in ids.indices {
                        if field > 0 { out.store(UInt8(ascii: ",")) }
                        Self.storeCell(
                            row, ids[field].index, neutralise: neutralised[field], into: &out, other: &other)
                        out.reserve(ids.count - field + 2)
                    }
                }
                out.store(0x0D)
                out.store(0x0A)
            }
        }
        return out.withBytes { Array($0) }
    }

    /// Stores what `cell` returns for the value at `index` of `row`, numbers and text that
    /// needs no quotes read in place, anything else as its `Value`.
    @inline(__always)
    static func storeCell(
        _ row: PackedRow, _ index: Int, neutralise: Bool, into out: inout RawBytes, other: inout JSONWriter
    ) {
        switch row.tag(at: index) {
        case .null: return
        case .int:
            out.storeInteger(Int64(bitPattern: row.word(at: index)))
            return
        case .double:
            if out.storePlainDecimal(Double(bitPattern: row.word(at: index))) { return }
        case .decimal:
            row.withText(at: index) { out.storeReserving($0) }
            return
        case .string:
            if row.withText(at: index, { storePlainCell($0, neutralise: neutralise, into: &out) }) { return }
        default:
            break
        }
        storeCell(row.value(at: index), neutralise: neutralise, into: &out, other: &other)
    }

    /// Stores a text cell that needs no quotes as it is (after a `'` when `neutralise` and
    /// it starts like a formula); false (nothing stored) for one that needs quotes.
    @inline(__always)
    static func storePlainCell(_ text: UnsafeBufferPointer<UInt8>, neutralise: Bool, into out: inout RawBytes) -> Bool {
        guard !needsQuotes(text) else { return false }
        let prefixed = neutralise && text.first.map(isFormulaStart) == true
        out.reserve(text.count + 1)
        if prefixed { out.store(UInt8(ascii: "'")) }
        out.store(text)
        return true
    }

    /// Stores what `cell` returns for `value`: numbers as the JSON writer stores them,
    /// text read in place; anything else through `writeCell`.
    @inline(__always)
    static func storeCell(_ value: Value, neutralise: Bool, into out: inout RawBytes, other: inout JSONWriter) {
        switch value {
        case .null: return
        case .int(let int):
            out.storeInteger(int)
            return
        case .double(let double):
            if out.storePlainDecimal(double) { return }
        case .bool(let bool):
            out.reserve(5)
            for byte in (bool ? "true" : "false").utf8 { out.store(byte) }
            return
        case .decimal(let text):
            if out.storeUTF8(text) { return }
        case .string(let string):
            let stored = string.utf8.withContiguousStorageIfAvailable {
                storePlainCell($0, neutralise: neutralise, into: &out)
            }
            if stored == true { return }
        default:
            break
        }
        other.clear()
        writeCell(value, neutralise: neutralise, into: &other)
        other.bytes.withUnsafeBufferPointer { written in
            out.reserve(written.count)
            out.store(written)
        }
    }

    /// Whether text holds a comma, a quote, CR or LF (so `quote` quotes it), looked for
    /// 8 bytes at a time.
    static func needsQuotes(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return false }
        // Made here, not kept in a static (whose every read checks it was initialised).
        let quoted = ByteSet(UInt8(ascii: ","), UInt8(ascii: "\""), 0x0A, 0x0D)
        return quoted.firstIndex(in: base, from: 0, count: text.count) < text.count
    }

    /// Writes what `cell` returns for `value`.
    static func writeCell(_ value: Value, neutralise: Bool, into writer: inout JSONWriter) {
        switch value {
        case .null: return
        case .bool(let bool): writer.append(bool ? "true" : "false")
        case .int, .double, .decimal: writer.write(value)
        case .string(let text):
            let prefixed = neutralise && text.utf8.first.map(isFormulaStart) == true
            let written: Void? = text.utf8.withContiguousStorageIfAvailable {
                writeQuoted($0, prefixed: prefixed, into: &writer)
            }
            if written == nil {
                var contiguous = text
                contiguous.withUTF8 { writeQuoted($0, prefixed: prefixed, into: &writer) }
            }
        case .array, .object:
            var json = JSONWriter()
            json.write(value)
            json.bytes.withUnsafeBufferPointer { writeQuoted($0, prefixed: false, into: &writer) }
        }
    }

    /// Text as `quote` writes it, after a `'` when `prefixed`: in quotes, with quotes
    /// doubled, when it holds a comma, a quote, CR or LF.
    static func writeQuoted(_ text: UnsafeBufferPointer<UInt8>, prefixed: Bool, into writer: inout JSONWriter) {
        let quoted = needsQuotes(text)
        if quoted { writer.append(byte: UInt8(ascii: "\"")) }
        if prefixed { writer.append(byte: UInt8(ascii: "'")) }
        if quoted {
            for byte in text {
                if byte == UInt8(ascii: "\"") { writer.append(byte: byte) }
                writer.append(byte: byte)
            }
            writer.append(byte: UInt8(ascii: "\""))
        } else {
            writer.append(text)
        }
    }

    func appendRow(_ cells: [String], to out: inout [UInt8]) {
        for (index, cell) in cells.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: cell.utf8)
        }
        out.append(contentsOf: [0x0D, 0x0A])
    }

    public static func cell(_ value: Value, neutralise: Bool = true) -> String {
        switch value {
        case .null: return ""
        case .bool(let bool): return bool ? "true" : "false"
        case .int, .double, .decimal: return JSONWriter.compact(value)
        case .string(let text): return quote(neutralise ? neutralised(text) : text)
        case .array, .object: return quote(JSONWriter.compact(value))
        }
    }

    /// Whether a text cell starting with `byte` is neutralised: `=`, `+`, `-`, `@`, a tab or
    /// a carriage return, which spreadsheets take as the start of a formula.
    @inline(__always)
    static func isFormulaStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D: return true
        default: return false
        }
    }

    public static func neutralised(_ text: String) -> String {
        guard let first = text.utf8.first, isFormulaStart(first) else { return text }
        return "'" + text
    }

    public static func quote(_ text: String) -> String {
        guard
            text.utf8.contains(where: {
                $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D
            })
        else {
            return text
        }
        // Quotes doubled byte by byte: a quote followed by a combining mark is one
        // `Character`, which a replacement of the text "\"" would leave single.
        let doubled = text.utf8.flatMap { $0 == UInt8(ascii: "\"") ? [$0, $0] : [$0] }
        return "\"" + String(decoding: doubled, as: UTF8.self) + "\""
    }
}
