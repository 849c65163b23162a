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
        let offset = text.bytes.array.firstIndex(of: UInt8(ascii: "x"))!
        #expect(text.lineAndColumn(ofOffset: offset) == (3, 3))
    }

    /// A minified file is one long line: columns there come from checkpoints, in any
    /// order of lookup, and must equal a count from the line start; the line itself comes
    /// from the index's marks 64 to 128 KiB apart, most with no break between them (the
    /// index made in one piece, or in three side by side that cut the long lines).
    @Test(arguments: [1, 3])
    func columnsOnAVeryLongLineMatchACountFromTheLineStart(threads: Int) {
        var line = "\u{FEFF}["
        var generator = SplitMix64(state: 25)
        let pieces = [
            "{\"name\":\"Kyiv\"},", "{\"name\":\"Zu\u{0308}rich\"},", "{\"name\":\"東京\"},", "{\"flag\":\"🇺🇦\"},",
            "{\"e\":\"e\u{301}\u{301}\"},",
        ]
        var nextBreak = 150_000  // three lines, each far longer than 64 KB
        while line.utf8.count < 400_000 {
            line += pieces[Int.random(in: 0..<pieces.count, using: &generator)]
            if line.utf8.count > nextBreak {
                line += "\r\n"
                nextBreak += 150_000
            }
        }
        line += "1]"
        let bytes = Array(line.utf8)
        let text = SourceText(displayPath: "min.json", bytes: bytes)
        if threads > 1 { text.findLineStarts(threads: Threads(threads)) }
        let starts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
        // Offsets at the start of each ASCII byte (character boundaries), in random order.
        let offsets = (0..<2_000).map { _ in Int.random(in: 3..<bytes.count, using: &generator) }.filter {
            bytes[$0] < 0x80 && bytes[$0] != 0x0A
        }
        for offset in offsets {
            let lineIndex = starts.lastIndex { $0 <= offset }!
            let from = lineIndex == 0 ? 3 : starts[lineIndex]  // the byte order mark is no character
            let expected = String(decoding: bytes[from..<offset], as: UTF8.self).count + 1
            let got = text.lineAndColumn(ofOffset: offset)
            #expect(got.line == lineIndex + 1 && got.column == expected, "offset \(offset)")
        }
        #expect(starts.count <= 4 && zip(starts, starts.dropFirst() + [bytes.count]).allSatisfy { $1 - $0 > 65_536 })
    }

    /// Line starts are found 16 bytes at a time in windows of 1 MiB, and before a parallel
    /// parse in one piece of the file per thread: line breaks at every place within a
    /// block and across windows and pieces, runs of empty lines and long lines give the
    /// lines a byte-by-byte count gives.
    @Test(arguments: [1, 2, 3])
    func lineStartsOfALargeFileMatchAByteByByteCount(threads: Int) {
        var generator = SplitMix64(state: 7)
        var bytes: [UInt8] = []
        while bytes.count < SourceText.parallelLineScan + 300_000 {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: bytes += [0x0A, 0x0A, 0x0A]
            case 1: bytes += Array(repeating: UInt8(ascii: "x"), count: Int.random(in: 0..<40_000, using: &generator))
            default: bytes += Array(repeating: UInt8(ascii: "a"), count: Int.random(in: 0..<31, using: &generator))
            }
            bytes.append(0x0A)
        }
        bytes += Array("no break at the end".utf8)
        let text = SourceText(displayPath: "big.csv", bytes: bytes)
        if threads > 1 { text.findLineStarts(threads: Threads(threads)) }
        let starts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
        for (line, start) in starts.enumerated() {
            #expect(text.offset(ofLine: line + 1) == start, "line \(line + 1)")
            #expect(text.lineAndColumn(ofOffset: start) == (line + 1, 1))
        }
        #expect(text.lineAndColumn(ofOffset: bytes.count - 1).line == starts.count)
    }

    @Test func columnsCountCharactersNotBytes() {
        // "Zürich", "🐝" and a decomposed "é" (e + combining accent) before the target.
        let line = "{\"a\": \"Zürich 🐝 e\u{301}\", \"b\": x}"
        let text = SourceText(displayPath: "x.json", bytes: Array(line.utf8))
        let offset = text.bytes.array.firstIndex(of: UInt8(ascii: "x"))!
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

    @Test func columnsIgnoreAByteOrderMark() {
        let text = SourceText(displayPath: "x", bytes: [0xEF, 0xBB, 0xBF] + Array("[{\"id\":1}]".utf8))
        #expect(text.lineAndColumn(ofOffset: 5) == (1, 3))
    }

    @Test func incrementalColumnsMatchCountingFromTheLineStart() {
        // One long minified line with multi-byte text between the values.
        var line = "["
        for index in 0..<300 { line += "{\"n\":\"Zürich 🐝 e\u{301} \(index)\",\"v\":\(index)}," }
        line += "{}]"
        let bytes = Array(line.utf8)
        let offsets = bytes.indices.filter { bytes[$0] == UInt8(ascii: "v") }
        let cached = SourceText(displayPath: "x", bytes: bytes)
        for offset in offsets {
            let fresh = SourceText(displayPath: "x", bytes: bytes)
            #expect(cached.lineAndColumn(ofOffset: offset) == fresh.lineAndColumn(ofOffset: offset))
        }
        // Going backwards falls back to counting from the line start.
        #expect(
            cached.lineAndColumn(ofOffset: offsets[3])
                == SourceText(displayPath: "x", bytes: bytes).lineAndColumn(ofOffset: offsets[3]))
    }

    /// A line past `longLine` bytes (a minified page file) counts columns from its points;
    /// an offset within the first `checkpointSpacing` bytes (a page's number, before its
    /// records) is counted from the line start before any point is made. Either way the
    /// column is the count of characters from the line start, asked in any order.
    @Test func longLineColumnsEqualTheCountFromTheLineStart() {
        var line = #"{"page":7,"results":["#
        var index = 0
        while line.utf8.count <= SourceText.longLine + 3 * SourceText.checkpointSpacing {
            line += #"{"n":"Zürich 🐝 e\#u{301} \#(index)","v":\#(index)},"#
            index += 1
        }
        line += "{}]}"
        let bytes = Array(("{}\n" + line + "\n").utf8)
        let lineStart = 3
        func expected(_ offset: Int) -> (Int, Int) {
            (2, String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1)
        }
        let near = [lineStart, lineStart + 8, lineStart + SourceText.checkpointSpacing]
        let values = bytes.indices.filter { bytes[$0] == UInt8(ascii: "v") }
        let offsets = near + stride(from: 0, to: values.count, by: 97).map { values[$0] } + [values.last!]
        let ascending = SourceText(displayPath: "x", bytes: bytes)
        for offset in offsets { #expect(ascending.lineAndColumn(ofOffset: offset) == expected(offset)) }
        let descending = SourceText(displayPath: "x", bytes: bytes)
        for offset in offsets.reversed() { #expect(descending.lineAndColumn(ofOffset: offset) == expected(offset)) }
    }

    /// The line index does not grow with the lines as a table of every line start did (8
    /// bytes a line): 200,000 city-like lines take a mark every 64th line, and a location
    /// past any mark, in a line before or after it, is still the byte-by-byte count.
    @Test(arguments: [1, 3])
    func theLineIndexHoldsAMarkEvery64LinesNotEveryLine(threads: Int) {
        var bytes: [UInt8] = []
        var generator = SplitMix64(state: 11)
        for index in 0..<200_000 {
            let name = String(repeating: "n", count: Int.random(in: 0..<60, using: &generator))
            bytes += Array(",{\"name\":\"\(name)\",\"_id\":\(index)}\n".utf8)
        }
        let text = SourceText(displayPath: "cities.json", bytes: bytes)
        if threads > 1 { text.findLineStarts(threads: Threads(threads)) }
        let starts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
        for _ in 0..<2_000 {
            let line = Int.random(in: 0..<starts.count, using: &generator)
            let start = starts[line]
            let end = line + 1 < starts.count ? starts[line + 1] : bytes.count
            let offset = Int.random(in: start...max(start, end - 1), using: &generator)
            #expect(text.lineAndColumn(ofOffset: offset) == (line + 1, offset - start + 1), "offset \(offset)")
            #expect(text.offset(ofLine: line + 1) == start)
        }
        // 200,001 lines: about 3,125 marks of 24 bytes, against 1.6 MB of line starts.
        #expect(text.lineIndexBytes <= (starts.count / LineIndex.lineSpacing + 2 + threads) * 24 * 2)
        #expect(text.lineIndexBytes > 0)
    }
}
