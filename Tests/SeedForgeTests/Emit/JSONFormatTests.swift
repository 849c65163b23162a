import Foundation
import Testing

@testable import SeedForge

@Suite("Emit: JSON format")
struct JSONFormatTests {
    @Test func jsonRenderedInPiecesIsIdenticalToOnePiece() throws {
        let source = SourceText(displayPath: "x", bytes: [])
        let fields = [
            FieldSpec(name: "id", type: .integer, sourcePath: nil),
            FieldSpec(name: "name", type: .string, sourcePath: nil),
        ]
        let ids = [FieldID(index: 0), FieldID(index: 1)]
        let records = (0..<45_000).map {
            Record(
                values: [.int(Int64($0)), .string("n\"\($0)")], origin: Origin(source: source, offset: 0, index: $0))
        }
        let dir = try TempDir()
        var outputs: [Data] = []
        for threads in [1, 2, 3] {
            let folder = try OutputDirectory(
                target: dir.url.appendingPathComponent("t\(threads)"), threads: Threads(threads))
            try JSONFormat().write(
                records, fields: fields, ids: ids,
                into: OutputWriter(folder: folder, file: "a.json", outputs: [], threads: Threads(threads)))
            try folder.commit()
            outputs.append(try dir.bytes("t\(threads)/a.json"))
        }
        #expect(outputs[0] == outputs[1] && outputs[1] == outputs[2])
        #expect(outputs[0] == Data(JSONFormat().render(records, fields: fields, ids: ids)))
        withExtendedLifetime(source) {}
    }
}
