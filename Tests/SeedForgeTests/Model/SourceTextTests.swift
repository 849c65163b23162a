import Testing

@testable import SeedForge

@Suite("Source locations")
struct SourceTextTests {
    @Test func linesAndColumnsFromByteOffsets() {
        let text = SourceText(displayPath: "x.json", bytes: Array("ab\ncd\n\nef".utf8))
        #expect(text.lineAndColumn(ofOffset: 0) == (1, 1))
        #expect(text.lineAndColumn(ofOffset: 4) == (2, 2))
        #expect(text.lineAndColumn(ofOffset: 7) == (4, 1))
    }

    @Test func crlfLineEndsCountAsOneLineBreak() {
        let text = SourceText(displayPath: "x.json", bytes: Array("[\r\n  1,\r\n  x\r\n]".utf8))
        let offset = Array(text.bytes).firstIndex(of: UInt8(ascii: "x"))!
        #expect(text.lineAndColumn(ofOffset: offset) == (3, 3))
    }

    @Test func columnsCountCharactersNotBytes() {
        // "Zürich", "🐝" and a decomposed "é" (e + combining accent) before the target.
        let line = "{\"a\": \"Zürich 🐝 e\u{301}\", \"b\": x}"
        let text = SourceText(displayPath: "x.json", bytes: Array(line.utf8))
        let offset = Array(text.bytes).firstIndex(of: UInt8(ascii: "x"))!
        #expect(text.lineAndColumn(ofOffset: offset) == (1, Array(line).firstIndex(of: "x")! + 1))
    }

    @Test func minifiedOneLineFilesLocateDeepValues() throws {
        let json = #"[{"name":"A","coordinates":[1,2]},{"name":"B","coordinates":[3,999]}]"#
        let text = SourceText(displayPath: "x.json", bytes: Array(json.utf8))
        let second = try #require(json.range(of: #"{"name":"B""#)).lowerBound.utf16Offset(in: json)
        text.recordsPointer = ""
        let origin = Origin(source: text, offset: second, index: 1)
        let location = origin.location(of: FieldPath(parsing: "/coordinates/1"))
        #expect(location.line == 1)
        #expect(location.column == 64)
        #expect(location.pointer == "/1/coordinates/1")
        #expect(origin.sourceValue(at: FieldPath(parsing: "/coordinates/1")!) == .int(999))
        withExtendedLifetime(text) {}
    }
}
