import Foundation

/// The one JSON reader every JSON and NDJSON source uses.
///
/// It works on the file's bytes, validates UTF-8, never recurses deeper than `maxDepth`,
/// and reports errors as byte offsets; `SourceText` turns an offset into a line and a
/// column only when a message needs one. It reads records one at a time, so a caller can
/// stop, skip or locate a value without materialising the whole document. A string or
/// number longer than `maxValueBytes` throws `JSONLimitError` (checked once, at its end).
public struct JSONReader {
    public static let defaultMaxDepth = 256

    let bytes: UnsafeBufferPointer<UInt8>
    /// Current read position (byte offset).
    public var position: Int
    let end: Int
    let maxDepth: Int
    /// Longest string or number allowed, in bytes as written (`limits.max-value-bytes`).
    let maxValueBytes: Int
    /// Offset of the first repeated key seen in the last value read, if any.
    public var duplicateKeyOffset: Int?
    /// A value already checked (the records array, parsed on several threads): skipping
    /// jumps over it instead of checking it again.
    public var checked: Range<Int>?

    public init(
        bytes: UnsafeBufferPointer<UInt8>, start: Int = 0, end: Int? = nil, maxDepth: Int = JSONReader.defaultMaxDepth,
        maxValueBytes: Int = .max
    ) {
        self.bytes = bytes
        self.position = start
        self.end = end ?? bytes.count
        self.maxDepth = maxDepth
        self.maxValueBytes = maxValueBytes
    }

    // MARK: - Structure

    /// Skips a UTF-8 byte order mark at the current position.
    public mutating func skipByteOrderMark() {
        if end - position >= 3, bytes[position] == 0xEF, bytes[position + 1] == 0xBB, bytes[position + 2] == 0xBF {
            position += 3
        }
    }

    public mutating func skipWhitespace() {
        while position < end {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    public var atEnd: Bool { position >= end }

    /// The next non-white-space byte, without consuming it.
    public mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < end ? bytes[position] : nil
    }

    public mutating func expect(_ byte: UInt8, _ what: String) throws {
        skipWhitespace()
        guard position < end else {
            throw JSONSyntaxError(offset: position, message: "unexpected end of input, expected \(what)")
        }
        guard bytes[position] == byte else { throw unexpected(expected: what) }
        position += 1
    }

    /// Reads the separator after an array element: returns true when another element
    /// follows, false at the closing bracket. Rejects trailing commas.
    public mutating func nextArrayElement(first: Bool) throws -> Bool {
        skipWhitespace()
        guard position < end else {
            throw JSONSyntaxError(
                offset: position,
                message: "unexpected end of input inside an array (truncated file?), expected ',' or ']'")
        }
        if bytes[position] == UInt8(ascii: "]") {
            position += 1
            return false
        }
        if !first {
            guard bytes[position] == UInt8(ascii: ",") else { throw unexpected(expected: "',' or ']'") }
            position += 1
            skipWhitespace()
            guard position < end else {
                throw JSONSyntaxError(
                    offset: position, message: "unexpected end of input inside an array (truncated file?)")
            }
            if bytes[position] == UInt8(ascii: "]") {
                throw JSONSyntaxError(offset: position, message: "trailing comma before ']'")
            }
        }
        return true
    }

    // MARK: - Values

    public mutating func readValue() throws -> Value {
        duplicateKeyOffset = nil
        return try parseValue(depth: 0)
    }

    mutating func parseValue(depth: Int) throws -> Value {
        skipWhitespace()
        guard position < end else {
            throw JSONSyntaxError(
                offset: position, message: "unexpected end of input, expected a value (truncated file?)")
        }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw unexpected(expected: "a value")
        }
    }

    mutating func parseObject(depth: Int) throws -> Value {
        guard depth <= maxDepth else {
            throw JSONSyntaxError(offset: position, message: "nesting deeper than \(maxDepth) levels")
        }
        position += 1
        var object = JSONObject()
        skipWhitespace()
        if position < end, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard position < end else {
                throw JSONSyntaxError(
                    offset: position, message: "unexpected end of input inside an object (truncated file?)")
            }
            guard bytes[position] == UInt8(ascii: "\"") else {
                if bytes[position] == UInt8(ascii: "}") {
                    throw JSONSyntaxError(offset: position, message: "trailing comma before '}'")
                }
                throw unexpected(expected: "a quoted key")
            }
            let keyOffset = position
            let key = try parseString()
            try expect(UInt8(ascii: ":"), "':' after key")
            let value = try parseValue(depth: depth)
            if object.keys.contains(key) {
                if duplicateKeyOffset == nil { duplicateKeyOffset = keyOffset }
                object[key] = value
            } else {
                object.appendUnchecked(key, value)
            }
            skipWhitespace()
            guard position < end else {
                throw JSONSyntaxError(
                    offset: position,
                    message: "unexpected end of input inside an object (truncated file?), expected ',' or '}'")
            }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(object)
            default: throw unexpected(expected: "',' or '}'")
            }
        }
    }

    mutating func parseArray(depth: Int) throws -> Value {
        guard depth <= maxDepth else {
            throw JSONSyntaxError(offset: position, message: "nesting deeper than \(maxDepth) levels")
        }
        position += 1
        var array: [Value] = []
        var first = true
        while try nextArrayElement(first: first) {
            first = false
            array.append(try parseValue(depth: depth))
        }
        return .array(array)
    }

    mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        let start = position
        guard end - position >= count else {
            throw JSONSyntaxError(offset: start, message: "unexpected end of input in literal (truncated file?)")
        }
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[start + $0] == expected[$0] }
        }
        guard matches else { throw JSONSyntaxError(offset: start, message: "invalid literal, expected \(word)") }
        position += count
    }

    mutating func parseNumber() throws -> Value {
        let start = position
        var isInteger = true
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < end, isDigit(bytes[position]) else {
            throw JSONSyntaxError(offset: start, message: "invalid number: expected a digit")
        }
        // The first 19 significant digits as an integer, and how many of them follow the
        // point: most numbers then read as one exact multiplication or division.
        var mantissa: UInt64 = 0
        var significant = 0
        var fractionDigits = 0
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < end, isDigit(bytes[position]) {
                throw JSONSyntaxError(offset: start, message: "invalid number: leading zeros are not allowed")
            }
        } else {
            while position < end, isDigit(bytes[position]) {
                significant += 1
                if significant <= 19 { mantissa = mantissa &* 10 &+ UInt64(bytes[position] &- UInt8(ascii: "0")) }
                position += 1
            }
        }
        if position < end, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < end, isDigit(bytes[position]) else {
                throw JSONSyntaxError(offset: position, message: "invalid number: expected a digit after '.'")
            }
            while position < end, isDigit(bytes[position]) {
                let digit = bytes[position] &- UInt8(ascii: "0")
                if mantissa != 0 || digit != 0 { significant += 1 }
                if significant <= 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    fractionDigits += 1
                }
                position += 1
            }
        }
        var exponent = 0
        if position < end, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            var negativeExponent = false
            if position < end, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                negativeExponent = bytes[position] == UInt8(ascii: "-")
                position += 1
            }
            guard position < end, isDigit(bytes[position]) else {
                throw JSONSyntaxError(offset: position, message: "invalid number: expected a digit in the exponent")
            }
            while position < end, isDigit(bytes[position]) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[position] &- UInt8(ascii: "0")) }
                position += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        let length = position - start
        if length > maxValueBytes { throw JSONLimitError(offset: start, length: length, what: "a number") }
        if isInteger, length <= 18 {
            // At most 18 digits: all of them are in the mantissa.
            let value = Int64(mantissa)
            return .int(negative ? -value : value)
        }
        if !isInteger, significant <= 19,
            let double = PowersOfTen.nearestDouble(
                mantissa: mantissa, power: exponent - fractionDigits, negative: negative)
        {
            return .double(double)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if isInteger, let exact = Int64(text) { return .int(exact) }
        guard let double = Double(text), double.isFinite else {
            throw JSONSyntaxError(offset: start, message: "number \(text) is out of range")
        }
        return .double(double)
    }

    @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// Reads a string token, validating UTF-8 and decoding escapes.
    public mutating func parseString() throws -> String {
        try parseString { String(decoding: $0, as: UTF8.self) }
    }

    /// Reads a string token (at its opening quote) and hands its text, unescaped, to
    /// `body` as UTF-8 bytes (valid only inside `body`): the file's own bytes when the
    /// string has no escapes.
    mutating func parseString<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) throws -> R {
        let open = position
        position += 1
        let start = position
        // Fast path: no escapes.
        while position < end {
            position = plainRun(from: position)
            guard position < end else { break }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                if position - start > maxValueBytes { throw tooLong(open) }
                let text = body(UnsafeBufferPointer(rebasing: bytes[start..<position]))
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw controlCharacter(byte) }
            if byte < 0x80 { position += 1 } else { try skipUTF8Sequence() }
        }
        guard position < end else {
            throw JSONSyntaxError(offset: open, message: "unterminated string (truncated file?)")
        }
        var buffer = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < end {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                if position - start > maxValueBytes { throw tooLong(open) }
                position += 1
                return buffer.withUnsafeBufferPointer(body)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case 0..<0x20:
                throw controlCharacter(byte)
            case 0..<0x80:
                buffer.append(byte)
                position += 1
            default:
                let sequenceStart = position
                try skipUTF8Sequence()
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[sequenceStart..<position]))
            }
        }
        throw JSONSyntaxError(offset: open, message: "unterminated string (truncated file?)")
    }

    /// The first offset at or after `from` whose byte ends a string's run of plain ASCII
    /// (a quote, a backslash, a control character or a byte of a multi-byte sequence), 8
    /// bytes at a time; where fewer than 8 bytes are left it stops, and the caller looks at
    /// them one by one.
    @inline(__always)
    func plainRun(from: Int) -> Int {
        guard let base = bytes.baseAddress else { return from }
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let high: UInt64 = 0x8080_8080_8080_8080
        var position = from
        while position &+ 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            // The high bit of each byte that is a quote, a backslash, below 0x20 or above 0x7F.
            let found =
                ByteWords.equal(word, ByteWords.repeated(UInt8(ascii: "\"")))
                | ByteWords.equal(word, ByteWords.repeated(UInt8(ascii: "\\")))
                | ((~((word & low) &+ 0x6060_6060_6060_6060) | word) & high)
            if found != 0 { return position &+ found.trailingZeroBitCount &>> 3 }
            position &+= 8
        }
        return position
    }

    /// The string opened at `open` and closed at `position` is over `maxValueBytes`.
    func tooLong(_ open: Int) -> JSONLimitError {
        JSONLimitError(offset: open, length: position - open - 1, what: "a string")
    }

    func controlCharacter(_ byte: UInt8) -> JSONSyntaxError {
        let hex = String(byte, radix: 16, uppercase: true)
        return JSONSyntaxError(
            offset: position,
            message: "control character U+\(hex.count < 2 ? "000" : "00")\(hex) must be escaped inside a string")
    }

    mutating func parseEscape(into buffer: inout [UInt8]) throws {
        let escapeStart = position
        position += 1
        guard position < end else {
            throw JSONSyntaxError(offset: escapeStart, message: "unterminated escape sequence")
        }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): buffer.append(0x22)
        case UInt8(ascii: "\\"): buffer.append(0x5C)
        case UInt8(ascii: "/"): buffer.append(0x2F)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4(at: escapeStart)
            if (0xD800...0xDBFF).contains(scalar) {
                guard end - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else {
                    throw JSONSyntaxError(offset: escapeStart, message: "unpaired UTF-16 surrogate in \\u escape")
                }
                position += 2
                let low = try hex4(at: escapeStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw JSONSyntaxError(offset: escapeStart, message: "unpaired UTF-16 surrogate in \\u escape")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw JSONSyntaxError(offset: escapeStart, message: "unpaired UTF-16 surrogate in \\u escape")
            }
            buffer.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
        default:
            throw JSONSyntaxError(
                offset: escapeStart, message: "invalid escape sequence '\\\(Character(Unicode.Scalar(byte)))'")
        }
    }

    mutating func hex4(at escapeStart: Int) throws -> UInt32 {
        guard end - position >= 4 else { throw JSONSyntaxError(offset: escapeStart, message: "incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONSyntaxError(offset: escapeStart, message: "invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Advances over one multi-byte UTF-8 sequence starting at `position`, or throws with
    /// the offset of the first invalid byte. Rejects overlong forms, surrogates and values
    /// above U+10FFFF.
    mutating func skipUTF8Sequence() throws {
        let lead = bytes[position]
        guard let (count, first, last) = UTF8Lead.sequence(lead) else {
            throw JSONSyntaxError(
                offset: position, message: "invalid UTF-8 byte 0x\(String(lead, radix: 16, uppercase: true))")
        }
        var index = position + 1
        var low = first
        var high = last
        for _ in 0..<count {
            guard index < end, bytes[index] >= low, bytes[index] <= high else {
                throw JSONSyntaxError(
                    offset: position,
                    message: "invalid UTF-8 sequence starting with byte 0x\(String(lead, radix: 16, uppercase: true))")
            }
            low = 0x80
            high = 0xBF
            index += 1
        }
        position = index
    }

    // MARK: - Walking objects without building them

    /// Steps into the object at `position`; false when it is empty (and then past it).
    mutating func enterObject(depth: Int) throws -> Bool {
        guard depth <= maxDepth else {
            throw JSONSyntaxError(offset: position, message: "nesting deeper than \(maxDepth) levels")
        }
        position += 1
        skipWhitespace()
        if position < end, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return false
        }
        return true
    }

    /// Reads a member's key and the colon after it, leaving the reader at the value.
    /// Returns the key's raw bytes (between the quotes) and whether it had no escapes.
    mutating func memberKey() throws -> (key: Range<Int>, plain: Bool) {
        skipWhitespace()
        guard position < end else {
            throw JSONSyntaxError(
                offset: position, message: "unexpected end of input inside an object (truncated file?)")
        }
        guard bytes[position] == UInt8(ascii: "\"") else {
            if bytes[position] == UInt8(ascii: "}") {
                throw JSONSyntaxError(offset: position, message: "trailing comma before '}'")
            }
            throw unexpected(expected: "a quoted key")
        }
        let keyStart = position + 1
        let plain = try skipString()
        let key = keyStart..<(position - 1)
        try expect(UInt8(ascii: ":"), "':' after key")
        return (key, plain)
    }

    /// After a member's value: true when another member follows, false past the '}'.
    mutating func nextMember() throws -> Bool {
        skipWhitespace()
        guard position < end else {
            throw JSONSyntaxError(
                offset: position,
                message: "unexpected end of input inside an object (truncated file?), expected ',' or '}'")
        }
        switch bytes[position] {
        case UInt8(ascii: ","):
            position += 1
            return true
        case UInt8(ascii: "}"):
            position += 1
            return false
        default: throw unexpected(expected: "',' or '}'")
        }
    }

    // MARK: - Reading declared fields only

    /// Reads the object at `position`, storing the values at the tree's paths into
    /// `values` (by field index; text copied as bytes, without making a `String`) and
    /// skipping everything else without building it.
    /// Returns false when the record needs the general reader: it is not an object, a
    /// key is repeated, or (with `allowUnknown` false) a key is not in the tree. Throws on
    /// a syntax error exactly where `readValue` would.
    public mutating func readFields(
        _ tree: [FieldTree.Child], into values: inout RowBuilder, allowUnknown: Bool
    ) throws -> Bool {
        guard peek() == UInt8(ascii: "{") else { return false }
        duplicateKeyOffset = nil
        let clean = try readObjectFields(tree, into: &values, allowUnknown: allowUnknown, depth: 1)
        // A key repeated inside a field's own value (an object field) counts too.
        return clean && duplicateKeyOffset == nil
    }

    mutating func readObjectFields(
        _ children: [FieldTree.Child], into values: inout RowBuilder, allowUnknown: Bool, depth: Int
    ) throws -> Bool {
        guard try enterObject(depth: depth) else { return true }
        var clean = true
        var matched: UInt64 = 0
        // The keys read that the tree does not hold, as ranges of the file (to find one
        // written twice).
        var unknownKeys: [Range<Int>] = []
        repeat {
            let (range, plain) = try memberKey()
            if !plain { clean = false }
            let child =
                plain
                ? children.withUnsafeBufferPointer { children in
                    FieldTree.index(in: children, of: bytes.baseAddress! + range.lowerBound, count: range.count)
                } : nil
            if let child {
                let bit: UInt64 = child < 64 ? 1 << UInt64(child) : 0
                if matched & bit != 0 { clean = false }
                matched |= bit
                if try !readNode(children[child].node, into: &values, allowUnknown: allowUnknown, depth: depth) {
                    clean = false
                }
            } else {
                if !allowUnknown { clean = false }
                if unknownKeys.contains(where: { sameBytes($0, range) }) {
                    clean = false
                } else {
                    unknownKeys.append(range)
                }
                if try !skipFast(depth: depth) { clean = false }
            }
        } while try nextMember()
        return clean
    }

    /// Whether two ranges of the file hold the same bytes (two keys as written).
    @inline(__always)
    func sameBytes(_ first: Range<Int>, _ second: Range<Int>) -> Bool {
        first.count == second.count
            && (first.isEmpty
                || memcmp(bytes.baseAddress! + first.lowerBound, bytes.baseAddress! + second.lowerBound, first.count)
                    == 0)
    }

    /// Reads the value at `position` for a tree node: a field's value, or a container's
    /// declared members (anything else is skipped).
    mutating func readNode(
        _ node: FieldTree.Node, into values: inout RowBuilder, allowUnknown: Bool, depth: Int
    ) throws -> Bool {
        switch node {
        case .field(let field):
            skipWhitespace()
            if position < end, bytes[position] == UInt8(ascii: "\"") {
                try parseString { values.setText(field, $0) }
            } else {
                values.set(field, try parseValue(depth: depth))
            }
            return true
        case .container(let children):
            switch peek() {
            case UInt8(ascii: "{"):
                return try readObjectFields(children, into: &values, allowUnknown: allowUnknown, depth: depth + 1)
            case UInt8(ascii: "["):
                return try readArrayFields(children, into: &values, allowUnknown: allowUnknown, depth: depth + 1)
            default: return try skipFast(depth: depth)
            }
        }
    }

    mutating func readArrayFields(
        _ children: [FieldTree.Child], into values: inout RowBuilder, allowUnknown: Bool, depth: Int
    ) throws -> Bool {
        guard depth <= maxDepth else {
            throw JSONSyntaxError(offset: position, message: "nesting deeper than \(maxDepth) levels")
        }
        position += 1
        var clean = true
        var index = 0
        while try nextArrayElement(first: index == 0) {
            if let child = children.first(where: { $0.position == index }) {
                if try !readNode(child.node, into: &values, allowUnknown: allowUnknown, depth: depth) { clean = false }
            } else if try !skipFast(depth: depth) {
                clean = false
            }
            index += 1
        }
        return clean
    }

    /// Skips a string token (at its opening quote) with the same checks as `parseString`;
    /// returns whether it had no escapes.
    mutating func skipString() throws -> Bool {
        let open = position
        position += 1
        var plain = true
        while position < end {
            position = plainRun(from: position)
            guard position < end else { break }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                if position - open - 1 > maxValueBytes { throw tooLong(open) }
                position += 1
                return plain
            }
            if byte == UInt8(ascii: "\\") {
                plain = false
                var scratch: [UInt8] = []
                try parseEscape(into: &scratch)
                continue
            }
            if byte < 0x20 { throw controlCharacter(byte) }
            if byte < 0x80 { position += 1 } else { try skipUTF8Sequence() }
        }
        throw JSONSyntaxError(offset: open, message: "unterminated string (truncated file?)")
    }

    /// Skips one value with the same syntax checks as `readValue`, building nothing;
    /// returns false if an object inside repeats a key.
    mutating func skipFast(depth: Int) throws -> Bool {
        skipWhitespace()
        if let checked, position == checked.lowerBound {
            position = checked.upperBound
            return true
        }
        guard position < end else {
            throw JSONSyntaxError(
                offset: position, message: "unexpected end of input, expected a value (truncated file?)")
        }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            _ = try skipString()
            return true
        case UInt8(ascii: "{"):
            guard try enterObject(depth: depth + 1) else { return true }
            var keys: [Range<Int>] = []
            var clean = true
            repeat {
                let (range, plain) = try memberKey()
                if !plain { clean = false }
                if keys.contains(where: { sameBytes($0, range) }) { clean = false } else { keys.append(range) }
                if try !skipFast(depth: depth + 1) { clean = false }
            } while try nextMember()
            return clean
        case UInt8(ascii: "["):
            guard depth < maxDepth else {
                throw JSONSyntaxError(offset: position, message: "nesting deeper than \(maxDepth) levels")
            }
            position += 1
            var clean = true
            var first = true
            while try nextArrayElement(first: first) {
                first = false
                if try !skipFast(depth: depth + 1) { clean = false }
            }
            return clean
        default:
            _ = try parseValue(depth: depth)
            return true
        }
    }

    // MARK: - Skipping and locating

    /// Skips one value without building it, checking its syntax.
    public mutating func skipValue() throws {
        _ = try skipFast(depth: 0)
    }

    /// The byte offset of the value at `path` inside the value that starts at the current
    /// position, or nil when the path does not exist.
    public mutating func locate(_ path: FieldPath) -> Int? {
        for component in path.components {
            switch peek() {
            case UInt8(ascii: "{"):
                let wanted: String
                switch component {
                case .key(let key): wanted = key
                case .index(let index): wanted = String(index)
                }
                guard seekKey(wanted) else { return nil }
            case UInt8(ascii: "["):
                let wanted: Int
                switch component {
                case .index(let index): wanted = index
                case .key(let key):
                    guard let index = Int(key) else { return nil }
                    wanted = index
                }
                guard seekElement(wanted) else { return nil }
            default:
                return nil
            }
        }
        skipWhitespace()
        return position < end ? position : nil
    }

    /// The path from the value at the current position down to the key or value that
    /// starts at byte `target` inside it (the inverse of `locate`).
    public mutating func path(to target: Int) -> [FieldPath.Component]? {
        var components: [FieldPath.Component] = []
        while true {
            guard let byte = peek() else { return nil }
            if position == target { return components }
            var entered = false
            if byte == UInt8(ascii: "{") {
                position += 1
                while let next = peek(), next != UInt8(ascii: "}") {
                    let keyOffset = position
                    guard next == UInt8(ascii: "\""), let key = try? parseString() else { return nil }
                    if keyOffset == target { return components + [.key(key)] }
                    guard (try? expect(UInt8(ascii: ":"), "':'")) != nil, peek() != nil else { return nil }
                    let valueStart = position
                    // The value itself: no need to skip it (it may be very long).
                    if valueStart == target { return components + [.key(key)] }
                    guard (try? skipValue()) != nil else { return nil }
                    if target >= valueStart && target < position {
                        position = valueStart
                        components.append(.key(key))
                        entered = true
                        break
                    }
                    if peek() == UInt8(ascii: ",") { position += 1 }
                }
            } else if byte == UInt8(ascii: "[") {
                position += 1
                var index = 0
                while let next = peek(), next != UInt8(ascii: "]") {
                    let valueStart = position
                    if valueStart == target { return components + [.index(index)] }
                    guard (try? skipValue()) != nil else { return nil }
                    if target >= valueStart && target < position {
                        position = valueStart
                        components.append(.index(index))
                        entered = true
                        break
                    }
                    index += 1
                    if peek() == UInt8(ascii: ",") { position += 1 }
                }
            }
            if !entered { return nil }
        }
    }

    /// Inside an object at `position`, moves to the value of `key`.
    mutating func seekKey(_ key: String) -> Bool {
        position += 1
        while let byte = peek(), byte != UInt8(ascii: "}") {
            guard byte == UInt8(ascii: "\""), let name = try? parseString(),
                (try? expect(UInt8(ascii: ":"), "':'")) != nil
            else { return false }
            if name == key { return true }
            guard (try? skipValue()) != nil else { return false }
            if peek() == UInt8(ascii: ",") { position += 1 }
        }
        return false
    }

    /// Inside an array at `position`, moves to element `index`.
    mutating func seekElement(_ index: Int) -> Bool {
        position += 1
        for _ in 0..<index {
            guard peek() != UInt8(ascii: "]"), (try? skipValue()) != nil, peek() == UInt8(ascii: ",") else {
                return false
            }
            position += 1
        }
        return peek() != UInt8(ascii: "]")
    }

    func unexpected(expected: String) -> JSONSyntaxError {
        // A file may end where something else was expected (`{` and blank lines, found by
        // the fuzzer): there is no byte to name there.
        guard position < bytes.count else {
            return JSONSyntaxError(
                offset: position, message: "unexpected end of input, expected \(expected) (truncated file?)")
        }
        let byte = bytes[position]
        let found: String
        if byte >= 0x20, byte < 0x7F {
            found = "'\(Character(Unicode.Scalar(byte)))'"
        } else {
            found = "byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
        return JSONSyntaxError(offset: position, message: "expected \(expected), found \(found)")
    }
}
