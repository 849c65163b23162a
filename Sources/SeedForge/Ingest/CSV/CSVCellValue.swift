import Foundation

/// The typed value of one field of delimited text, read straight from its bytes. An
/// empty field is null (a quoted empty field `""` is the empty text for a `string`
/// field); numbers, integers, decimals and booleans are read from the text, surrounding
/// spaces ignored; `string` and `any` keep the text as written.
enum CSVCellValue {
    enum Outcome {
        case value(Value)
        /// The text does not fit the type: the field's text, for the message.
        case mismatch(String)
        case invalidUTF8
    }

    static func read(
        _ cell: CSVCell, in buffer: UnsafeBufferPointer<UInt8>, quote: UInt8?, as type: FieldType
    ) -> Outcome {
        if cell.start == cell.end {
            return .value(cell.quoted && (type == .string || type == .any) ? .string("") : .null)
        }
        if type.readsCSVText {
            guard let text = CSVScanner.text(cell, in: buffer, quote: quote) else { return .invalidUTF8 }
            return .value(.string(text))
        }
        var start = cell.start
        var end = cell.end
        while start < end, buffer[start] == 0x20 || buffer[start] == 0x09 { start += 1 }
        while end > start, buffer[end - 1] == 0x20 || buffer[end - 1] == 0x09 { end -= 1 }
        let bytes = UnsafeBufferPointer(rebasing: buffer[start..<end])
        if bytes.isEmpty { return .value(.null) }
        let converted: Value?
        switch type {
        case .boolean: converted = boolean(bytes)
        case .decimal:
            converted = number(bytes).flatMap { _ in
                ExactDecimal.canonical(String(decoding: bytes, as: UTF8.self)).map(Value.decimal)
            }
        case .integer:
            switch number(bytes) {
            case .int(let int)?: converted = .int(int)
            case .double(let double)? where double.rounded() == double && abs(double) < 9.007e15:
                converted = .int(Int64(double))
            default: converted = nil
            }
        default: converted = number(bytes)
        }
        if let converted { return .value(converted) }
        guard let text = CSVScanner.text(cell, in: buffer, quote: quote) else { return .invalidUTF8 }
        return .mismatch(text)
    }

    static func boolean(_ bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        func lowered(_ word: String) -> Bool {
            bytes.count == word.utf8.count && zip(bytes, word.utf8).allSatisfy { $0 | 0x20 == $1 }
        }
        if lowered("true") { return .bool(true) }
        if lowered("false") { return .bool(false) }
        return nil
    }

    /// An integer written as digits alone (a sign allowed) of at most 18 digits, as
    /// `parsedNumber` reads it; nil for anything else (`parsedNumber` decides those). Most
    /// numbers of a file (ids, counts) are such; one loop over their digits reads them.
    @inline(__always)
    static func plainInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return nil }
        var index = 0
        let negative = base[0] == UInt8(ascii: "-")
        if negative || base[0] == UInt8(ascii: "+") { index = 1 }
        guard count > index, count - index <= 18 else { return nil }
        var value: Int64 = 0
        while index < count {
            let digit = base[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            index += 1
        }
        return negative ? -value : value
    }

    /// A number written as JSON writes one (leading zeros and a leading '+' allowed): an
    /// integer of up to 18 digits exactly, otherwise the nearest double. Nil when the text
    /// is not a number.
    static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        if let plain = plainInteger(bytes) { return .int(plain) }
        return parsedNumber(bytes)
    }

    /// `number` for any text: sign, digits, fraction and exponent read in turn.
    static func parsedNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        var index = 0
        let count = bytes.count
        var negative = false
        if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var significant = 0
        var fractionDigits = 0
        func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
        while index < count, isDigit(bytes[index]) {
            if mantissa != 0 || bytes[index] != UInt8(ascii: "0") { significant += 1 }
            if significant <= 19 { mantissa = mantissa &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0")) }
            digits += 1
            index += 1
        }
        var isInteger = true
        if index < count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            while index < count, isDigit(bytes[index]) {
                if mantissa != 0 || bytes[index] != UInt8(ascii: "0") { significant += 1 }
                if significant <= 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
                    fractionDigits += 1
                }
                digits += 1
                index += 1
            }
        }
        guard digits > 0 else { return nil }
        var exponent = 0
        if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            var negativeExponent = false
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                negativeExponent = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < count, isDigit(bytes[index]) else { return nil }
            while index < count, isDigit(bytes[index]) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[index] &- UInt8(ascii: "0")) }
                index += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        guard index == count else { return nil }
        if isInteger, significant <= 18 {
            let value = Int64(mantissa)
            return .int(negative ? -value : value)
        }
        // Exact fast path: a mantissa below 2^53 and a power of ten that is itself exact
        // give the correctly rounded double in one multiplication or division.
        if significant <= 19,
            let double = PowersOfTen.nearestDouble(
                mantissa: mantissa, power: exponent - fractionDigits, negative: negative)
        {
            return .double(double)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if isInteger, let exact = Int64(text) { return .int(exact) }
        guard let double = Double(text), double.isFinite else { return nil }
        return .double(double)
    }
}

extension FieldType {
    /// Whether a csv cell of a field of this type is read as its text (a string), as
    /// `CSVCellValue.read` reads it.
    var readsCSVText: Bool {
        switch self {
        case .string, .any, .array, .object: return true
        default: return false
        }
    }
}
