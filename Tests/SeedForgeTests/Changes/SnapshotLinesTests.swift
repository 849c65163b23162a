import Testing

@testable import SeedForge

/// A snapshot's record lines, kept as one offset a line, must still give each line's exact
/// bytes: without its line break, the last one with or without a break at the file's end,
/// empty collections and collections one after another.
@Suite("Snapshot lines")
struct SnapshotLinesTests {
    static func text(_ snapshot: Snapshot, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: snapshot.bytes[range]), as: UTF8.self)
    }

    @Test(arguments: ["\n", ""])
    func linesAreTheRecordsWithoutTheirBreaks(end: String) throws {
        let file =
            #"{"format":"seedforge-snapshot","version":1,"dataset":"d"}"# + "\n"
            + #"{"collection":"a","fields":["id"],"records":2}"# + "\n" + "[1]\n[22]\n"
            + #"{"collection":"e","fields":["id"],"records":0}"# + "\n"
            + #"{"collection":"b","fields":["id","name"],"records":3}"# + "\n"
            + "[3,\"x\"]\n[44,\"yy\"]\n[5,\"\"]" + end
        let snapshot = try Snapshot(rendered: Array(file.utf8))
        let lines = snapshot.collections.map { collection in collection.lines.map { Self.text(snapshot, $0) } }
        #expect(lines == [["[1]", "[22]"], [], [#"[3,"x"]"#, #"[44,"yy"]"#, #"[5,""]"#]])
        #expect(snapshot.collections.map(\.lines.count) == [2, 0, 3])
        #expect(
            try snapshot.values(of: snapshot.collections[2].lines[1]).map { Self.text(snapshot, $0) } == [
                "44", #""yy""#,
            ])
    }
}
