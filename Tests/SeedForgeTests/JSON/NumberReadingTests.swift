import Testing

@testable import SeedForge

/// The JSON reader and the CSV cell reader read most numbers without `strtod` (one exact
/// multiplication or division); these tests hold every such reading to the double the
/// standard library's `Double(String)` (strtod) gives for the same text, bit for bit.
@Suite("Number reading")
struct NumberReadingTests {
    /// A JSON number: sign, 1 to 24 digits with the point anywhere (or none), an optional
    /// exponent; many near the edges of the fast path (15 to 19 digits, powers near 22,
    /// mantissas near 2^53).
    static func randomNumber(_ generator: inout SplitMix64) -> String {
        var text = generator.below(4) == 0 ? "-" : ""
        let digitCount = 1 + generator.below(24)
        var digits = (0..<digitCount).map { _ in Character(String(generator.below(10))) }
        if generator.below(8) == 0 {
            // Around 2^53 (9007199254740992), where the mantissa stops being exact.
            digits = Array(String(9_007_199_254_740_992 + UInt64(generator.below(5)) - 2))
        }
        if digits.count > 1, digits[0] == "0" { digits[0] = "1" }
        let point = generator.below(digits.count + 1)
        if point == 0 || point == digits.count {
            text += String(digits)
        } else {
            text += String(digits[..<point]) + "." + String(digits[point...])
        }
        switch generator.below(3) {
        case 0: break
        case 1: text += "e" + String(generator.below(60) - 30)
        default: text += (generator.below(2) == 0 ? "E+" : "e-") + String(generator.below(26))
        }
        return text
    }

    static let edgeCases = [
        "0.1", "0.2", "0.3", "4.35", "48.85341", "-157.86167", "1e22", "1e23", "1e-22", "1e-23",
        "9007199254740991.5", "9007199254740993", "9007199254740993.0", "0.9007199254740993",
        "2.2250738585072014e-308", "2.2250738585072011e-308", "1.7976931348623157e308", "5e-324",
        "4.9406564584124654e-324", "123456789012345678e-5", "1234567890123456789e-3", "0.0000000000000000000001",
        "-0.0", "0.0", "0e5", "0e-400", "1e308", "3.141592653589793", "2.718281828459045e0",
        "1.00000000000000011102230246251565404236316680908203125", "7.2057594037927933e16",
        "100000000000000000000000", "0.000001234", "2.5E+3", "753.0", "89.99999999999999",
    ]

    func readJSON(_ text: String) throws -> Value {
        try Array(text.utf8).withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer)
            return try reader.readValue()
        }
    }

    func expectSameAsStrtod(_ value: Value?, _ text: String, _ reader: String) {
        guard let expected = Double(text) else {
            Issue.record("Double(\(text)) is nil")
            return
        }
        switch value {
        case .double(let double)?:
            #expect(double.bitPattern == expected.bitPattern, "\(reader) read \(text) as \(double), strtod \(expected)")
        case .int(let int)?:
            #expect(Double(int) == expected, "\(reader) read \(text) as \(int)")
        default:
            Issue.record("\(reader) read \(text) as \(String(describing: value))")
        }
    }

    @Test func jsonNumbersAreTheDoublesStrtodReads() throws {
        var generator = SplitMix64(state: 20_261_125)
        let inputs = Self.edgeCases + (0..<200_000).map { _ in Self.randomNumber(&generator) }
        for text in inputs where Double(text)?.isFinite == true {
            expectSameAsStrtod(try readJSON(text), text, "JSONReader")
        }
    }

    @Test func csvNumbersAreTheDoublesStrtodReads() throws {
        var generator = SplitMix64(state: 14)
        let inputs = Self.edgeCases + (0..<200_000).map { _ in Self.randomNumber(&generator) }
        for text in inputs where Double(text)?.isFinite == true {
            let value = Array(text.utf8).withUnsafeBufferPointer { CSVCellValue.number($0) }
            expectSameAsStrtod(value, text, "CSVCellValue")
        }
        // Leading zeros and a '+' are allowed in delimited text.
        for text in ["+0.1", "007.25", "-000.000123", "+1e-5", "0000000000000000000000.5"] {
            let value = Array(text.utf8).withUnsafeBufferPointer { CSVCellValue.number($0) }
            expectSameAsStrtod(value, text, "CSVCellValue")
        }
    }

    /// Integers keep their exact value; integers beyond Int64 and numbers beyond a double's
    /// range behave as before.
    @Test func integersAndOutOfRange() throws {
        #expect(try readJSON("-9223372036854775808") == .int(Int64.min))
        #expect(try readJSON("999999999999999999") == .int(999_999_999_999_999_999))
        #expect(try readJSON("12345678901234567890") == .double(12_345_678_901_234_567_890))
        #expect(try readJSON("-0") == .int(0))
        #expect(throws: JSONSyntaxError.self) { try readJSON("1e400") }
    }
}
