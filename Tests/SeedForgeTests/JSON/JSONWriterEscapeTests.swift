import Testing

@testable import SeedForge

@Suite("JSON writer: escapes and records")
struct JSONWriterEscapeTests {
    /// The escape check reads eight bytes at a time: every byte that must be escaped is found
    /// at every position of a word and in the tail, and no other byte (UTF-8 included) is.
    @Test func findsEveryByteThatNeedsAnEscapeAtEveryPosition() {
        let escaped: [UInt8] = Array(0..<0x20) + [UInt8(ascii: "\""), UInt8(ascii: "\\")]
        for length in 1...19 {
            for position in 0..<length {
                for byte in UInt8(0)...UInt8(255) {
                    var text = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    text[position] = byte
                    let found = text.withUnsafeBufferPointer { JSONWriter.needsEscape($0) }
                    #expect(found == escaped.contains(byte), "byte \(byte) at \(position) of \(length)")
                }
            }
        }
        let clean = Array("Zürich, Ελλάδα, 東京 — \u{7F}!#$%&'()*+,-./09:;<=>?@[]^_`{|}~".utf8)
        #expect(!clean.withUnsafeBufferPointer { JSONWriter.needsEscape($0) })
    }

    @Test func writesRecordsAsTheObjectOfTheirFieldsWouldBe() {
        let value = Value.object(
            JSONObject([
                ("name", .string("Quote \" and \\ and\ttab and é")), ("lat", .double(48.85341)), ("id", .int(-7)),
                ("none", .null), ("long", .string(String(repeating: "x", count: 40))),
            ]))
        #expect(
            JSONWriter.compact(value)
                == #"{"name":"Quote \" and \\ and\ttab and é","lat":48.85341,"id":-7,"none":null,"long":"\#(String(repeating: "x", count: 40))"}"#
        )
    }
}
