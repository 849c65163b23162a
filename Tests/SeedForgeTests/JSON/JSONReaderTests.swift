import Testing

@testable import SeedForge

@Suite("JSON reader")
struct JSONReaderTests {
    func read(_ text: String) throws -> Value {
        try read(bytes: Array(text.utf8))
    }

    func read(bytes: [UInt8]) throws -> Value {
        try bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer)
            let value = try reader.readValue()
            if reader.peek() != nil { throw JSONSyntaxError(offset: reader.position, message: "trailing data") }
            return value
        }
    }

    func error(_ text: String) -> JSONSyntaxError? { error(bytes: Array(text.utf8)) }

    func error(bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            _ = try read(bytes: bytes)
            return nil
        } catch let error as JSONSyntaxError {
            return error
        } catch {
            return nil
        }
    }

    @Test func readsEveryKindOfValue() throws {
        let value = try read(
            #"{"s":"héllo","i":707860,"d":44.549999,"neg":-3,"e":1.5e3,"t":true,"f":false,"n":null,"a":[1,[2]],"o":{}}"#
        )
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        #expect(object.keys == ["s", "i", "d", "neg", "e", "t", "f", "n", "a", "o"])
        #expect(object["s"] == .string("héllo"))
        #expect(object["i"] == .int(707860))
        #expect(object["d"] == .double(44.549999))
        #expect(object["neg"] == .int(-3))
        #expect(object["e"] == .double(1500))
        #expect(object["t"] == .bool(true))
        #expect(object["n"] == .null)
        #expect(object["a"] == .array([.int(1), .array([.int(2)])]))
        #expect(object["o"] == .object(JSONObject()))
    }

    @Test func integersKeepFullPrecisionAndFloatsStayFloats() throws {
        #expect(try read("9007199254740993") == .int(9_007_199_254_740_993))
        #expect(try read("-9223372036854775808") == .int(Int64.min))
        #expect(try read("136256.0") == .double(136256))
        #expect(error("1e400")?.message.contains("out of range") == true)
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        #expect(try read(#""a\"b\\c\/d\n\t\u00e9\ud83d\udc1d""#) == .string("a\"b\\c/d\n\té🐝"))
    }

    @Test(arguments: [
        ("[1, 2", "unexpected end of input inside an array"),
        ("[1, 2,]", "trailing comma before ']'"),
        (#"{"a": 1,}"#, "trailing comma before '}'"),
        (#"{"a" 1}"#, "expected ':' after key"),
        (#""abc"#, "unterminated string"),
        ("01", "leading zeros"),
        ("1.", "expected a digit after '.'"),
        ("tru", "unexpected end of input in literal"),
        ("nul!", "invalid literal"),
        (#""\x""#, "invalid escape sequence"),
        (#""\ud800""#, "unpaired UTF-16 surrogate"),
        ("\"a\tb\"", "control character U+0009 must be escaped"),
        ("", "unexpected end of input"),
    ])
    func reportsSyntaxErrors(text: String, message: String) {
        let found = error(text)
        #expect(found != nil, "expected an error for \(text)")
        #expect(found?.message.contains(message) == true, "\(found?.message ?? "none") should mention \(message)")
    }

    @Test func reportsTheOffsetOfTheProblem() {
        #expect(error("[1, 2,]")?.offset == 6)
        #expect(error(#"{"a": 1 "b": 2}"#)?.offset == 8)
    }

    @Test func rejectsInvalidUTF8WithTheOffsetOfTheBadByte() {
        // "ab" then a lone continuation byte, inside a string.
        let bad: [UInt8] = [0x22, 0x61, 0x62, 0x80, 0x22]
        let found = error(bytes: bad)
        #expect(found?.offset == 3)
        #expect(found?.message.contains("invalid UTF-8") == true)
        // Overlong encoding of '/' and an encoded surrogate are invalid too.
        #expect(error(bytes: [0x22, 0xC0, 0xAF, 0x22]) != nil)
        #expect(error(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22]) != nil)
        // A truncated multi-byte sequence at the end of a string.
        #expect(error(bytes: [0x22, 0xE2, 0x82, 0x22]) != nil)
        // Valid 2, 3 and 4 byte sequences pass.
        #expect((try? read("\"é€🐝\"")) == .string("é€🐝"))
    }

    @Test func limitsNestingDepthInsteadOfOverflowingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(error(deep)?.message.contains("nesting deeper than") == true)
    }

    @Test func recordsTheFirstDuplicateKey() throws {
        let bytes = Array(#"{"rating": 4, "name": "x", "rating": 7}"#.utf8)
        try bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer)
            let value = try reader.readValue()
            #expect(reader.duplicateKeyOffset == 27)
            guard case .object(let object) = value else { return }
            #expect(object.count == 2)
        }
    }

    @Test func locatesValuesByPointerWithoutParsingTheRest() throws {
        let text = #"{"name": "Hurzuf", "coord": {"lon": 34.28, "lat": 44.55}, "tags": ["a", "b"]}"#
        let bytes = Array(text.utf8)
        func locate(_ pointer: String) -> Int? {
            bytes.withUnsafeBufferPointer { buffer in
                var reader = JSONReader(bytes: buffer)
                return reader.locate(FieldPath(parsing: pointer)!)
            }
        }
        let lat = try #require(locate("/coord/lat"))
        #expect(text.utf8.dropFirst(lat).starts(with: "44.55".utf8))
        let tag = try #require(locate("/tags/1"))
        #expect(text.utf8.dropFirst(tag).starts(with: "\"b\"".utf8))
        #expect(locate("/coord/alt") == nil)
        #expect(locate("/tags/2") == nil)
        #expect(locate("/name/0") == nil)
    }

    /// Strings are scanned 8 bytes at a time for the first quote, backslash, control
    /// character or non-ASCII byte: it must be the byte a one-by-one look finds, wherever
    /// it lies in a word and within a reader that ends before its buffer does.
    @Test func plainRunsStopWhereAByteByByteLookStops() {
        var state: UInt64 = 2026
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let special: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x20, 0x21, 0x5B, 0x5D, 0x7F, 0x80, 0xC3, 0xFF, 0x0A, 0x09]
        for round in 0..<3000 {
            let length = Int(next() % 40)
            let bytes = (0..<length).map { _ in next() % 5 == 0 ? special[Int(next() % UInt64(special.count))] : 0x61 }
            let end = length - Int(next() % UInt64(min(length, 4) + 1))
            bytes.withUnsafeBufferPointer { buffer in
                let reader = JSONReader(bytes: buffer, end: end)
                for from in 0...end {
                    var stop = from
                    while stop < end, bytes[stop] != 0x22, bytes[stop] != 0x5C, bytes[stop] >= 0x20, bytes[stop] < 0x80
                    {
                        stop += 1
                    }
                    let found = reader.plainRun(from: from)
                    // A run may stop early only within the last 7 bytes (looked at one by one).
                    #expect(found == stop || (found < stop && end - found < 8), "round \(round) from \(from): \(bytes)")
                    #expect(found <= stop, "round \(round) from \(from): \(bytes)")
                }
            }
        }
    }
}
