import Foundation

/// How a delimited text file is written: the byte between fields, the quote (nil: fields
/// are never quoted, as in TSV), and the byte that starts a comment line (nil: none).
public struct CSVDialect: Sendable, Equatable {
    public var delimiter: UInt8
    public var quote: UInt8?
    public var comment: UInt8?

    public init(delimiter: UInt8, quote: UInt8?, comment: UInt8?) {
        self.delimiter = delimiter
        self.quote = quote
        self.comment = comment
    }
}

/// One field of a row as written: its bytes (inside the quotes for a quoted field), and
/// whether it was quoted and holds doubled quotes to undo.
public struct CSVCell: Sendable {
    public var start: Int
    public var end: Int
    public var quoted: Bool
    public var escapes: Bool
}

/// Why a row cannot be read: where, and what is wrong (RFC 4180 quoting).
public struct CSVProblem: Sendable {
    public let offset: Int
    public let message: String
}

/// The byte-level reader of delimited text (RFC 4180): finds rows and their fields
/// without making a string of any of them. A row ends at LF (a CR before it belongs to
/// the line end); a quoted field may hold delimiters, quotes written twice and line breaks.
/// A row with bad quoting is reported as its first line, and reading goes on at the next
/// line, so every line of the file ends in a record or a rejection.
public struct CSVScanner {
    let buffer: UnsafeBufferPointer<UInt8>
    let dialect: CSVDialect
    /// The bytes that end an unquoted field or are a quote there (delimiter, LF, quote).
    private let specials: ByteSet

    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")

    public init(_ buffer: UnsafeBufferPointer<UInt8>, dialect: CSVDialect) {
        self.buffer = buffer
        self.dialect = dialect
        // Without a quote the delimiter is looked for twice.
        let quote = dialect.quote ?? dialect.delimiter
        specials = ByteSet(dialect.delimiter, Self.lineFeed, quote, quote)
    }

    /// The offset of the first delimiter, LF or quote at or after `from` (`buffer.count`
    /// when none follows), looked for 8 bytes at a time.
    @inline(__always)
    func nextSpecial(from: Int) -> Int {
        guard from < buffer.count, let base = buffer.baseAddress else { return buffer.count }
        return specials.firstIndex(in: base, from: from, count: buffer.count)
    }

    /// The offset just past the line that holds `offset` (past its LF, or the end).
    public func nextLine(after offset: Int) -> Int {
        guard offset < buffer.count, let base = buffer.baseAddress else { return buffer.count }
        guard let found = memchr(base + offset, Int32(Self.lineFeed), buffer.count - offset) else {
            return buffer.count
        }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
    }

    /// The start of the next row at or after `offset`: blank lines and comment lines are
    /// skipped. Returns `buffer.count` at the end.
    public func skipToRow(from offset: Int) -> Int {
        var position = offset
        while position < buffer.count {
            let byte = buffer[position]
            if byte == Self.lineFeed {
                position += 1
            } else if byte == Self.carriageReturn, position + 1 < buffer.count, buffer[position + 1] == Self.lineFeed {
                position += 2
            } else if let comment = dialect.comment, byte == comment {
                position = nextLine(after: position)
            } else {
                return position
            }
        }
        return position
    }

    /// Reads the row starting at `start` into `cells`; returns where the next row may start
    /// and the problem that rejects this one, if any.
    public func row(at start: Int, into cells: inout [CSVCell]) -> (next: Int, problem: CSVProblem?) {
        cells.removeAll(keepingCapacity: true)
        let count = buffer.count
        let delimiter = dialect.delimiter
        var position = start
        while true {
            if let quote = dialect.quote, position < count, buffer[position] == quote {
                let open = position
                position += 1
                let cellStart = position
                var escapes = false
                while true {
                    guard let base = buffer.baseAddress, position < count,
                        let found = memchr(base + position, Int32(quote), count - position)
                    else {
                        return (
                            nextLine(after: start),
                            CSVProblem(
                                offset: open,
                                message:
                                    "the quoted field that starts here is never closed (a quote inside a field is written twice: \"\")"
                            )
                        )
                    }
                    position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    if position + 1 < count, buffer[position + 1] == quote {
                        escapes = true
                        position += 2
                        continue
                    }
                    break
                }
                cells.append(CSVCell(start: cellStart, end: position, quoted: true, escapes: escapes))
                position += 1
                if position >= count { return (count, nil) }
                let byte = buffer[position]
                if byte == delimiter {
                    position += 1
                    continue
                }
                if byte == Self.lineFeed { return (position + 1, nil) }
                if byte == Self.carriageReturn, position + 1 >= count || buffer[position + 1] == Self.lineFeed {
                    return (min(position + 2, count), nil)
                }
                // A quote that was not closed on its line runs on to the next quote in
                // the file: point at where it opened.
                let lines = buffer[cellStart..<position].reduce(0) { $0 + ($1 == Self.lineFeed ? 1 : 0) }
                if lines > 0 {
                    return (
                        nextLine(after: start),
                        CSVProblem(
                            offset: open,
                            message:
                                "the quoted field that starts here is not closed on its line: the next quote, \(lines) line\(lines == 1 ? "" : "s") on, is followed by text; is its closing quote missing?"
                        )
                    )
                }
                return (
                    nextLine(after: start),
                    CSVProblem(
                        offset: position,
                        message:
                            "text after the closing quote of a quoted field (a quote inside a field is written twice: \"\")"
                    )
                )
            }
            let cellStart = position
            position = nextSpecial(from: position)
            if let quote = dialect.quote, position < count, buffer[position] == quote {
                return (
                    nextLine(after: start),
                    CSVProblem(
                        offset: position,
                        message:
                            "a quote inside a field that does not start with one; quote the whole field and write the quote twice (\"\")"
                    )
                )
            }
            var cellEnd = position
            if cellEnd > cellStart, buffer[cellEnd - 1] == Self.carriageReturn,
                position >= count || buffer[position] == Self.lineFeed
            {
                cellEnd -= 1
            }
            cells.append(CSVCell(start: cellStart, end: cellEnd, quoted: false, escapes: false))
            if position >= count { return (count, nil) }
            if buffer[position] == delimiter {
                position += 1
                continue
            }
            return (position + 1, nil)
        }
    }

    /// The bytes of a cell as text: quotes written twice become one. Nil when the bytes
    /// are not valid UTF-8.
    public func text(_ cell: CSVCell) -> String? { Self.text(cell, in: buffer, quote: dialect.quote) }

    /// The text of a cell of `buffer` (see `text(_:)`), for callers that hold no scanner.
    static func text(_ cell: CSVCell, in buffer: UnsafeBufferPointer<UInt8>, quote: UInt8?) -> String? {
        // (`String(validating:as:)` would check once, but as an unspecialised generic it
        // costs more in metadata lookups than the second pass does.)
        withText(cell, in: buffer, quote: quote) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the cell's text as UTF-8 bytes, unescaped (the file's own bytes
    /// when it has no doubled quote); nil, without calling it, when they are not valid
    /// UTF-8.
    static func withText<R>(
        _ cell: CSVCell, in buffer: UnsafeBufferPointer<UInt8>, quote: UInt8?, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R? {
        let bytes = UnsafeBufferPointer(rebasing: buffer[cell.start..<cell.end])
        guard Self.isValidUTF8(bytes) else { return nil }
        guard cell.escapes, let quote else { return body(bytes) }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            unescaped.append(bytes[index])
            index += bytes[index] == quote ? 2 : 1
        }
        return unescaped.withUnsafeBufferPointer(body)
    }

    /// Whether `bytes` are valid UTF-8 (ASCII eight bytes at a time).
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        guard let base = bytes.baseAddress else { return true }
        while index < count {
            if index + 8 <= count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                    continue
                }
            }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            guard let (continuations, low, high) = UTF8Lead.sequence(lead), index + continuations < count else {
                return false
            }
            let second = bytes[index + 1]
            guard second >= low, second <= high else { return false }
            for extra in stride(from: 2, through: continuations, by: 1) where bytes[index + extra] & 0xC0 != 0x80 {
                return false
            }
            index += continuations + 1
        }
        return true
    }

    /// The offset of field `column` (0-based) of the row starting at `start`, for locations;
    /// nil when the row has fewer fields.
    public func offset(ofColumn column: Int, inRowAt start: Int) -> Int? {
        var cells: [CSVCell] = []
        _ = row(at: start, into: &cells)
        guard column < cells.count else { return nil }
        return cells[column].start - (cells[column].quoted ? 1 : 0)
    }
}
