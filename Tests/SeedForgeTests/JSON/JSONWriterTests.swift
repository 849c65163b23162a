import Testing

@testable import SeedForge

@Suite("JSON writer")
struct JSONWriterTests {
    @Test func writesDeterministicCompactJSON() {
        let value = Value.object(JSONObject([("b", .int(1)), ("a", .double(4.8)), ("s", .string("q\"\\\n\u{1}é"))]))
        #expect(JSONWriter.compact(value) == #"{"b":1,"a":4.8,"s":"q\"\\\n\u0001é"}"#)
    }

    @Test func numbersUseTheShortestRoundTripForm() {
        #expect(JSONWriter.format(4.8) == "4.8")
        #expect(JSONWriter.format(0.1 + 0.2) == "0.30000000000000004")
        #expect(JSONWriter.format(1e-5) == "1e-05")
        for value in [4.8, 0.1 + 0.2, 1e-5, 123.456, -80.2498, 1e300] {
            #expect(Double(JSONWriter.format(value)) == value)
        }
    }

    @Test func prettyOutputKeepsScalarArraysOnOneLine() {
        var writer = JSONWriter()
        writer.writePretty(
            .object(JSONObject([("c", .array([.double(-31.8552), .double(116.0019)])), ("o", .object(JSONObject()))])))
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "{\n  \"c\": [-31.8552, 116.0019],\n  \"o\": {}\n}")
    }
}
