import Foundation
import Testing

@testable import SeedForge

/// Input files are mapped, not copied, and their pages let go once read; what a message
/// needs later reads back the same bytes.
@Suite("FileBytes")
struct FileBytesTests {
    @Test func aMappedFileReadsBackTheSameBytesAfterItsPagesAreReleased() throws {
        let dir = try TempDir()
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let path = try dir.write("data.bin", bytes: bytes)
        let file = try FileBytes.read(path: path)
        #expect(file.count == bytes.count)
        #expect(file.array == bytes)
        file.releaseResidentPages()
        #expect(file.array == bytes)
        #expect(file[299_999] == bytes[299_999])
    }

    /// A reader's position stands one past the end after a last line without a line break
    /// (`Snapshot`'s line scan): a pass told so releases the file's bytes and ends cleanly,
    /// however the release steps fall.
    @Test func aPassThatReachesOnePastTheEndEndsCleanly() throws {
        let file = FileBytes(copying: [UInt8](repeating: 0x20, count: FileBytes.releaseStep + 10))
        var pass = FileBytes.ReleasingPass(file)
        pass.reached(file.count + 1)
        pass.end(at: file.count)
        var again = FileBytes.ReleasingPass(file, from: 5)
        again.end(at: 3)
        #expect(file.count == FileBytes.releaseStep + 10)
    }

    @Test func emptyMissingAndSpecialFiles() throws {
        let dir = try TempDir()
        #expect(try FileBytes.read(path: dir.write("empty.json", bytes: [])).count == 0)
        #expect(throws: IOFailure.self) { try FileBytes.read(path: dir.path + "/missing.json") }
        // A file whose size says 0 but which has contents (procfs) is read, not mapped.
        let status = try FileBytes.read(path: "/proc/self/status")
        #expect(String(decoding: status.array, as: UTF8.self).contains("Name:"))
    }

    @Test func locationsAfterReleaseAreTheSameAsBefore() throws {
        let dir = try TempDir()
        var json = "[\n"
        for id in 0..<20_000 { json += (id > 0 ? ",\n" : "") + #"  {"id": \#(id), "name": "Zürich \#(id)"}"# }
        json += "\n]\n"
        let path = try dir.write("cities.json", json)
        let fresh = SourceText(displayPath: "cities.json", bytes: Array(json.utf8))
        let mapped = SourceText(displayPath: "cities.json", bytes: try FileBytes.read(path: path))
        mapped.releasePages()
        for offset in stride(from: 0, to: json.utf8.count, by: 4_099) {
            #expect(mapped.lineAndColumn(ofOffset: offset) == fresh.lineAndColumn(ofOffset: offset))
        }
    }
}
