import Foundation

/// `kind: csv` (and `kind: tsv`, the same reader with other defaults): delimited text,
/// one record per row (RFC 4180 quoting), columns named by a header row or by `columns`.
/// Fields are typed as in JSON sources, read straight from the bytes. A row with bad
/// quoting, the wrong number of fields or a field that does not fit its type is rejected
/// with its file, line and column, and the run goes on; a header that lacks a column a
/// field takes, or a row or field over the pipeline's `limits`, fails the file.
public struct CSVSource: SourceKind {
    public static let spec = KindSpec(
        stage: .ingest, name: "csv",
        summary: "Comma-separated values (RFC 4180): one record per row, columns named by a header row or 'columns'.",
        keys: keys(delimiter: ",", quote: "\""),
        details: #"""
            Read straight from the bytes (in chunks on several threads for a large file; the result
            is the same for any thread count). A field takes the column of its own name, or the one
            `from` names: `from: asciiname` (or `/asciiname`), or a column by number counting from 0,
            `from: /3`, for files without names. Types are those of JSON sources, read from the text:
            `number` (`-0.5e1`, `48.85`; an integer of up to 18 digits stays an integer), `integer`
            (`136256.0` is accepted), `decimal` (exact digits: ` 40.50 ` is `40.5`), `boolean`
            (`true`/`false` in any case); spaces around a number or boolean are ignored; `string` and
            `any` keep the text as written. An empty field is null; a quoted empty field `""` is the
            empty text for a `string` field. `array` and `object` are definition errors (take the text
            and make a list with [`split`](#normalize)). A UTF-8 byte order mark is skipped, CRLF and
            LF line ends are both read (a CR inside a quoted field is kept), blank lines are skipped,
            and a quoted field may hold the delimiter, a quote written twice (`""`) and line breaks.

            Each malformed row is rejected with its file, line and column, and the run goes on:
            `csv-syntax` for bad quoting (a quote inside an unquoted field, text after a closing
            quote, a quote never closed: the row is its first line, reading goes on at the next, so
            no later row is swallowed), `csv-columns` for a row with more or fewer fields than the
            header (or `columns`, or the first row) has, `type` for a field whose text does not fit
            its type (the record keeps the text, at `/field`), `encoding` for a field that is not
            valid UTF-8. A header without a column a field takes (with "did you mean"), or naming it
            twice, fails the file, as does a row or field over the [`limits`](#input-limits).
            `unknown-fields: warn` warns once per file about columns no field takes; `reject` fails
            the file. In pipeline tests, inline records are written as a file of this shape (a header
            row unless `header: false`).

            `Fixtures/geonames/geonames.yml` (with its `geonames.test.yml`) reads both `csv` and `tsv`
            with their malformed rows; `seedforge validate Fixtures/geonames/geonames.yml` lists them:

            ```
            Fixtures/geonames/capitals.csv
              7:45     error    row cannot be read: the quoted field that starts here is not closed on its line: the next quote, 1 line on, is followed by text; is its closing quote missing? [csv-syntax] (value "2643743,London,GB,...,\"unclosed note")
              9:42     error    row has 6 fields, the header names 7 [csv-columns] (value "3169070,Rome,IT,2318895,41.89193,12.51133")
              11:19    error    field 'population' must be an integer, found the text "n/a" [type] (id 2267057, at /population, field population, value "n/a")
            ```
            """#,
        example: """
            capitals:
              kind: csv
              path: ../Fixtures/geonames/capitals.csv
              comment: "#"
              id: id
              fields:
                id: integer
                name: string
                population: integer
                latitude: number
                longitude: number
            """)

    static func keys(delimiter: String, quote: String) -> [KeySpec] {
        SourceKeys.common + [
            KeySpec(
                "header",
                #"whether the first row names the columns (default true, or false when `columns` is given; with both, the file's header row is skipped and must have as many columns as `columns` names)"#
            ),
            KeySpec(
                "columns",
                "the column names, in order, for files without a header row: [geonameid, name, asciiname, ...]"),
            KeySpec("delimiter", "the one character between fields (default \(delimiter); \"\\t\" for a tab)"),
            KeySpec(
                "quote",
                "the quote character (default \(quote)); 'none': fields are never quoted and a quote is an ordinary character"
            ),
            KeySpec("comment", "lines starting with this character are skipped (e.g. \"#\"; default: none)"),
        ]
    }

    public let dialect: CSVDialect
    let header: Bool
    let columns: [String]?
    /// The columns the fields take by name (a pipeline test's file has each of them).
    let takenColumns: [String]

    public init(config: ConfigMap) throws {
        try self.init(config: config, delimiter: UInt8(ascii: ","), quote: UInt8(ascii: "\""))
    }

    init(config: ConfigMap, delimiter defaultDelimiter: UInt8, quote defaultQuote: UInt8?) throws {
        func oneCharacter(_ key: String) throws -> UInt8? {
            guard let node = config[key] else { return nil }
            let text = try node.string("'\(key)'")
            let decoded = text == "\\t" ? "\t" : text
            guard decoded.utf8.count == 1, let byte = decoded.utf8.first, byte != 0x0A, byte != 0x0D else {
                throw node.error("'\(key)' must be one ASCII character other than a line break, found '\(text)'")
            }
            return byte
        }
        let delimiter = try oneCharacter("delimiter") ?? defaultDelimiter
        var quote = defaultQuote
        if let node = config["quote"] {
            quote = try node.string("'quote'") == "none" ? nil : try oneCharacter("quote")
        }
        let comment = try oneCharacter("comment")
        if quote == delimiter || comment == delimiter || (comment != nil && comment == quote) {
            throw (config["comment"] ?? config["quote"] ?? config["delimiter"])!.error(
                "'delimiter', 'quote' and 'comment' must be different characters")
        }
        dialect = CSVDialect(delimiter: delimiter, quote: quote, comment: comment)
        if let node = config["columns"] {
            let names = try node.list("'columns'").map { try $0.string("each entry of 'columns'") }
            if names.isEmpty { throw node.error("'columns' lists no column") }
            if let repeated = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
                throw node.error("'columns' names '\(repeated)' twice")
            }
            columns = names
        } else {
            columns = nil
        }
        header = try config.bool("header") ?? (columns == nil)
        let fields = try FieldMapping.load(config, what: "the source").fields
        takenColumns = fields.compactMap { field in
            if case .key(let name)? = field.sourcePath?.components.first { return name }
            return nil
        }
        if !header, columns == nil {
            if let named = fields.first(where: {
                if case .key? = $0.sourcePath?.components.first { return true } else { return false }
            }) {
                throw (config["header"] ?? config.node).error(
                    "without a header row or 'columns', a field takes its column by number: '\(named.name)' needs from: /0 (the first column), /1, ...; or list the names under 'columns'"
                )
            }
        }
    }

    /// The fields, as every source declares them; each takes one column, by name
    /// (`from: asciiname`, default the field's own name) or by number (`from: /0`).
    public static func declaredFields(
        _ config: ConfigMap, what: String
    ) throws -> (fields: [FieldSpec], errors: [DefinitionError]) {
        var (fields, errors) = try FieldMapping.load(config, what: what)
        let node = try config.require("fields")
        for field in fields {
            if (field.sourcePath?.components.count ?? 0) > 1 {
                errors.append(
                    node.error(
                        "field '\(field.name)' of \(what): a row's fields are flat, so 'from' names one column (from: asciiname, or from: /3 for the fourth), not \(field.sourcePath!)"
                    ))
            }
            if field.type == .array || field.type == .object {
                errors.append(
                    node.error(
                        "field '\(field.name)' of \(what) cannot be of type \(field.type.rawValue): a field of delimited text is text; take it as a string and make a list with a 'normalize: split' step"
                    ))
            }
        }
        return (fields, errors)
    }

    public func read(_ text: SourceText, into sink: inout IngestSink) throws -> PageMetadata? {
        let limits = sink.limits
        let mapping = sink.mapping
        let threads = sink.threads
        let (chunks, warning) = try text.bytes.withUnsafeBufferPointer { buffer in
            try Self.parse(
                buffer, text, dialect: dialect, header: header, columns: columns, mapping: mapping, limits: limits,
                threads: threads)
        }
        if let warning { sink.warnFile(warning) }
        try sink.merge(consume chunks, of: text)
        return nil
    }

    /// Reads a whole file into entries (in chunks on several threads for a large file),
    /// before any is taken, so a file over a limit gives none. Returns also a warning about
    /// the file (columns no field takes, with `unknown-fields: warn`).
    static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, _ text: SourceText, dialect: CSVDialect, header: Bool,
        columns: [String]?, mapping: FieldMapping, limits: InputLimits, threads: Threads
    ) throws -> (chunks: [[IngestEntry]], warning: Finding?) {
        let scanner = CSVScanner(buffer, dialect: dialect)
        var start = 0
        if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { start = 3 }
        start = scanner.skipToRow(from: start)
        var names = columns
        var cells: [CSVCell] = []
        if header {
            guard start < buffer.count else {
                throw SourceError(text, offset: start, "the file is empty; expected a header row naming the columns")
            }
            let (next, problem) = scanner.row(at: start, into: &cells)
            if let problem {
                throw SourceError(text, offset: problem.offset, "the header row cannot be read: \(problem.message)")
            }
            let found = cells.map { cell in
                scanner.text(cell)
                    ?? String(decoding: UnsafeBufferPointer(rebasing: buffer[cell.start..<cell.end]), as: UTF8.self)
            }
            if names == nil {
                names = found
            } else if found.count != names!.count {
                throw SourceError(
                    text, offset: start,
                    "the header row has \(found.count) columns, 'columns' names \(names!.count); a header row naming other columns than 'columns' lists is a different file layout"
                )
            }
            start = scanner.skipToRow(from: next)
        }
        // Each field's column in this file.
        var fieldColumns: [Int] = []
        var columnsByPath: [FieldPath: Int] = [:]
        for field in mapping.fields {
            guard let path = field.sourcePath, let first = path.components.first else { continue }
            let column: Int
            switch first {
            case .index(let index):
                column = index
            case .key(let name):
                guard let names else {
                    throw SourceError(
                        text, offset: start, "field '\(field.name)' names a column, but the file has no header")
                }
                let matches = names.indices.filter { names[$0] == name }
                guard let only = matches.first else {
                    throw SourceError(
                        text, offset: 0,
                        "no column '\(name)' (taken by field '\(field.name)') in \(columns == nil ? "the header row" : "'columns'")\(Suggestion.phrase(for: name, in: names)); the columns are: \(names.joined(separator: ", "))"
                    )
                }
                if matches.count > 1 {
                    throw SourceError(
                        text, offset: 0,
                        "the header row names column '\(name)' (taken by field '\(field.name)') \(matches.count) times; which one is meant is ambiguous"
                    )
                }
                column = only
            }
            fieldColumns.append(column)
            columnsByPath[path] = column
        }
        text.layout = CSVLayout(dialect: dialect, columns: columnsByPath)
        var warning: Finding?
        if mapping.unknownFields != .ignore, let names {
            let taken = Set(fieldColumns)
            let untaken = names.indices.filter { !taken.contains($0) }.map { names[$0] }
            if !untaken.isEmpty {
                let message =
                    "column\(untaken.count == 1 ? "" : "s") \(untaken.map { "'\($0)'" }.joined(separator: ", ")) \(untaken.count == 1 ? "is" : "are") not taken by any of the source's 'fields'"
                if mapping.unknownFields == .reject {
                    throw SourceError(text, offset: 0, message + " (unknown-fields: reject)")
                }
                warning = Finding(
                    rule: .unknownField, severity: .warning, message: message,
                    location: text.location(ofOffset: 0, pointer: ""))
            }
        }
        // The number of fields every row must have: the header's, or the first row's.
        var width = names?.count
        var probe = start
        while width == nil, probe < buffer.count {
            let (next, problem) = scanner.row(at: probe, into: &cells)
            if problem == nil { width = cells.count }
            probe = scanner.skipToRow(from: next)
        }
        if let needed = fieldColumns.max(), let width, needed >= width {
            throw SourceError(
                text, offset: start,
                "a field takes column /\(needed), but the rows have \(width) columns (numbered from /0)")
        }
        let reader = RowReader(
            scanner: scanner, text: text, mapping: mapping, fieldColumns: fieldColumns, width: width, limits: limits,
            widthFrom: columns != nil
                ? "'columns' names" : names != nil ? "the header names" : "the first readable row has")
        var splits: [Int] = []
        let length = buffer.count - start
        if threads.count > 1, length >= 1 << 17 {
            for piece in 1..<threads.count {
                let split = scanner.nextLine(after: start + length * piece / threads.count)
                if split > (splits.last ?? start), split < buffer.count { splits.append(split) }
            }
        }
        if !splits.isEmpty {
            text.findLineStarts(threads: threads)
            let starts = [start] + splits
            let results = threads.run(starts.count) { piece in
                reader.rows(from: starts[piece], stop: piece + 1 < starts.count ? starts[piece + 1] : buffer.count)
            }
            // A chunk is read as it would be in one piece only when every chunk before it
            // ended exactly where it starts; otherwise it started inside a quoted field and
            // what it found (an error too) means nothing: the file is read again in one piece.
            var aligned = true
            for (piece, result) in results.enumerated() {
                if let error = result.error { throw error }
                if piece + 1 < starts.count, result.end != starts[piece + 1] {
                    aligned = false
                    break
                }
            }
            if aligned { return (results.map(\.entries), warning) }
        }
        let whole = reader.rows(from: start, stop: buffer.count)
        if let error = whole.error { throw error }
        return ([whole.entries], warning)
    }

    public func document(holding records: [Value]) -> [UInt8] {
        var names: [String] = columns ?? []
        if columns == nil {
            for case .object(let object) in records {
                for key in object.keys where !names.contains(key) { names.append(key) }
            }
            for name in takenColumns where !names.contains(name) { names.append(name) }
            // Columns taken by number (no header, no names): records written {0: .., 2: ..}.
            if !header {
                let last = names.compactMap(Int.init).max() ?? -1
                names = last < 0 ? [] : (0...last).map(String.init)
            }
        }
        let delimiter = String(UnicodeScalar(dialect.delimiter))
        func field(_ value: Value?) -> String {
            let text: String
            switch value ?? .null {
            case .null: return ""
            case .string(let string): text = string
            case let other: text = JSONWriter.compact(other)
            }
            guard let quote = dialect.quote else { return text }
            let mark = String(UnicodeScalar(quote))
            if text.isEmpty || text.contains(delimiter) || text.contains(mark) || text.contains("\n")
                || text.contains("\r") || text.first == dialect.comment.map({ Character(UnicodeScalar($0)) })
            {
                return mark + text.replacingOccurrences(of: mark, with: mark + mark) + mark
            }
            return text
        }
        var lines: [String] = []
        if header { lines.append(names.map { field(.string($0)) }.joined(separator: delimiter)) }
        for record in records {
            guard case .object(let object) = record else { continue }
            lines.append(names.map { field(object[$0]) }.joined(separator: delimiter))
        }
        return Array(lines.map { $0 + "\n" }.joined().utf8)
    }
}

/// Where the fields of a delimited text file's rows are, for locations: each field's
/// column by its source path, and the dialect to find a row's fields again. A field is
/// located at its cell, with its path as the pointer; its value as written is the
/// cell's text.
public struct CSVLayout: RecordLayout {
    public let dialect: CSVDialect
    public let columns: [FieldPath: Int]

    /// The offset of the field at `path` in the row starting at `rowStart`, nil when the
    /// row lacks it or no field takes that path.
    func offset(of path: FieldPath, inRowAt rowStart: Int, _ text: SourceText) -> Int? {
        guard let column = columns[path] else { return nil }
        return text.bytes.withUnsafeBufferPointer { buffer in
            CSVScanner(buffer, dialect: dialect).offset(ofColumn: column, inRowAt: rowStart)
        }
    }

    /// The text of the field at `path` as written (an empty field is ""), nil when the row
    /// lacks it.
    func text(of path: FieldPath, inRowAt rowStart: Int, _ text: SourceText) -> String? {
        guard let column = columns[path] else { return nil }
        return text.bytes.withUnsafeBufferPointer { buffer in
            let scanner = CSVScanner(buffer, dialect: dialect)
            var cells: [CSVCell] = []
            _ = scanner.row(at: rowStart, into: &cells)
            return column < cells.count ? scanner.text(cells[column]) : nil
        }
    }

    public func location(of origin: Origin) -> Location {
        origin.source.location(ofOffset: origin.offset, pointer: origin.pointer)
    }

    public func location(of path: FieldPath?, in origin: Origin) -> Location {
        let cell = path.flatMap { offset(of: $0, inRowAt: origin.offset, origin.source) }
        return origin.source.location(ofOffset: cell ?? origin.offset, pointer: path?.description ?? "")
    }

    public func sourceValue(at path: FieldPath, in origin: Origin) -> Value? {
        text(of: path, inRowAt: origin.offset, origin.source).map(Value.string)
    }
}

/// Turns the rows of one stretch of a file into entries: typed records, or rejections.
struct RowReader {
    let scanner: CSVScanner
    let text: SourceText
    let mapping: FieldMapping
    let fieldColumns: [Int]
    let width: Int?
    let limits: InputLimits
    /// What sets `width`, for messages ("the header names").
    let widthFrom: String

    struct Result {
        var entries: [IngestEntry] = []
        /// A row or field over the limits: the file fails.
        var error: SourceError?
        /// Where the last row read ends (the start of the first row at or after `stop`).
        var end = 0
    }

    /// Reads the rows starting before `stop`.
    func rows(from start: Int, stop: Int) -> Result {
        var result = Result()
        var cells: [CSVCell] = []
        cells.reserveCapacity(max(width ?? 8, 8))
        var position = scanner.skipToRow(from: start)
        var index = 0
        let types = mapping.types
        let capacity = max(mapping.capacity, types.count)
        let quote = scanner.dialect.quote
        var values = RowBuilder()
        while position < stop {
            if index == Self.rowsBeforeEstimate {
                result.entries.reserveCapacity(
                    Self.estimatedRows(read: index, bytes: position - start, of: stop - start))
            }
            let (next, problem) = scanner.row(at: position, into: &cells)
            let origin = Origin(source: text, offset: position, index: index)
            defer {
                index += 1
                position = scanner.skipToRow(from: next)
            }
            if let problem {
                result.entries.append(
                    .unreadable(
                        Finding(
                            rule: .csvSyntax, message: "row cannot be read: \(problem.message)",
                            location: text.location(ofOffset: problem.offset, pointer: ""),
                            value: .string(line(at: origin.offset)))))
                continue
            }
            let rowEnd = cells.last.map { $0.end + ($0.quoted ? 1 : 0) } ?? position
            if rowEnd - position > limits.maxRecordBytes {
                result.error = limits.recordTooLarge(text, offset: position, length: rowEnd - position, from: nil)
                return result
            }
            // A field is within its row: only a row longer than the field limit can hold one over it.
            if rowEnd - position > limits.maxValueBytes,
                let long = cells.first(where: { $0.end - $0.start > limits.maxValueBytes })
            {
                result.error = SourceError(
                    text, offset: long.start,
                    InputLimits.exceeded(
                        "a field (\(long.end - long.start) bytes)", key: "max-value-bytes", limit: limits.maxValueBytes)
                )
                return result
            }
            if let width, cells.count != width {
                let offset = cells.count > width ? cells[width].start - (cells[width].quoted ? 1 : 0) : rowEnd
                let spans = cells.contains { $0.quoted && scanner.nextLine(after: $0.start) < $0.end }
                result.entries.append(
                    .unreadable(
                        Finding(
                            rule: .csvColumns,
                            message:
                                "row has \(cells.count) field\(cells.count == 1 ? "" : "s"), \(widthFrom) \(width)\(spans ? " (a quoted field of it runs over several lines: is a closing quote missing?)" : "")",
                            location: text.location(ofOffset: offset, pointer: ""),
                            value: .string(line(at: origin.offset)))))
                continue
            }
            var findings: [Finding] = []
            values.reset(count: types.count)
            for fieldIndex in 0..<types.count {
                let cell = cells[fieldColumns[fieldIndex]]
                // Text goes into the record's row as bytes, without a `String`.
                if cell.start != cell.end, types[fieldIndex].readsCSVText,
                    CSVScanner.withText(cell, in: scanner.buffer, quote: quote, { values.setText(fieldIndex, $0) })
                        != nil
                {
                    continue
                }
                values.set(fieldIndex, value(of: fieldIndex, cell, origin: origin, findings: &findings))
            }
            // Room for the fields later steps add.
            let record = Record(
                row: values.make(width: capacity, textFieldsAdded: mapping.addedTextFields), origin: origin)
            result.entries.append(findings.isEmpty ? .record(record) : .mapped(record, findings))
        }
        result.end = position
        return result
    }

    /// Rows read before the entries are given room for the whole stretch, estimated from
    /// their length (one allocation instead of a doubling a few times, each onto fresh pages).
    static let rowsBeforeEstimate = 255

    /// The rows a stretch of `total` bytes likely holds when `read` rows took `bytes`
    /// (a tenth more, so a stretch of longer rows first rarely grows again), but never more
    /// than one for every 32 bytes: a file whose first rows are much shorter than the rest
    /// is not given room (untouched, but asked of the system) for many times its rows. At
    /// about 72 bytes an entry that is at most 2.25 bytes of room for each byte of the
    /// stretch, no more than doubling gives a file of rows that short. Past the room the
    /// entries grow by doubling.
    static func estimatedRows(read: Int, bytes: Int, of total: Int) -> Int {
        guard bytes > 0 else { return read }
        return min(Int(Double(total) / Double(bytes) * Double(read) * 1.1) + 16, total / 32 + 256)
    }

    /// The typed value of field `fieldIndex` from its cell; a field whose text does not
    /// fit its type (kept as text) or is not UTF-8 (null) adds its finding.
    @inline(__always)
    private func value(of fieldIndex: Int, _ cell: CSVCell, origin: Origin, findings: inout [Finding]) -> Value {
        let types = mapping.types
        switch CSVCellValue.read(cell, in: scanner.buffer, quote: scanner.dialect.quote, as: types[fieldIndex]) {
        case .value(let value):
            return value
        case .mismatch(let written):
            let field = mapping.fields[fieldIndex]
            findings.append(
                Finding(
                    rule: .type,
                    message:
                        "field '\(field.name)' must be \(FieldMapping.article(field.type)), found the text \(RuleFields.describe(.string(written)))",
                    location: origin.location(of: field.sourcePath), field: field.name,
                    value: .string(written)))
            return .string(written)
        case .invalidUTF8:
            let field = mapping.fields[fieldIndex]
            findings.append(
                Finding(
                    rule: .encoding,
                    message: "field '\(field.name)' is not valid UTF-8 (is the file in another encoding?)",
                    location: origin.location(of: field.sourcePath), field: field.name))
            return .null
        }
    }

    /// The first line of the row at `offset`, for a rejection's value (at most 200 characters).
    func line(at offset: Int) -> String {
        var end = scanner.nextLine(after: offset)
        let buffer = scanner.buffer
        while end > offset, buffer[end - 1] == 0x0A || buffer[end - 1] == 0x0D { end -= 1 }
        return String(String(decoding: UnsafeBufferPointer(rebasing: buffer[offset..<end]), as: UTF8.self).prefix(200))
    }
}
