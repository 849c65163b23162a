import Foundation
import Testing

@testable import SeedForge

/// A rerun takes an input's SHA-256 from the manifest of the dataset it replaces while the
/// file's stamp is the one recorded there, and hashes any file written since.
@Suite("Ingest: hashes of inputs known from the previous dataset", .serialized)
struct KnownInputsTests {
    static let pipeline = """
        name: towns
        sources:
          cities:
            kind: json
            path: cities.json
            id: id
            fields: {id: integer, name: string}
        outputs:
          - file: cities.json
            collection: cities
        """
    static let cities = #"[{"id": 1, "name": "Hurzuf"}, {"id": 2, "name": "Novinki"}]"#

    /// The SHA-256 the dataset's manifest lists for cities.json.
    static func listedHash(_ dir: TempDir) throws -> String? {
        let manifest = try JSONFile.value(at: dir.path + "/out/towns/manifest.json")
        guard case .array(let inputs)? = manifest.member("inputs") else { return nil }
        return inputs.first?.member("sha256")?.string
    }

    @Test func aFileNotWrittenSinceKeepsItsRecordedHashAndAnyOtherIsHashed() throws {
        let dir = try TempDir()
        _ = try dir.write("pipeline.yml", Self.pipeline)
        _ = try dir.write("cities.json", Self.cities)
        let run = { try CLI.run(["run", "pipeline.yml", "--out", "out", "--force"], cwd: dir.path) }
        #expect(try run().status == 0)
        let real = try #require(try Self.listedHash(dir))
        #expect(real == Array(Self.cities.utf8).withUnsafeBufferPointer { SHA256.hex(buffer: $0) })

        // A manifest that records another hash for the same stamp: the rerun takes it from
        // there, without reading the file's bytes for it (which is what shows it was used).
        let recorded = String(repeating: "ab", count: 32)
        try dir.write(
            "out/towns/manifest.json",
            try dir.read("out/towns/manifest.json").replacingOccurrences(of: real, with: recorded))
        #expect(try run().status == 0)
        #expect(try Self.listedHash(dir) == recorded)

        // A damaged value (not 64 hexadecimal digits) is not carried on: the file is hashed.
        let damaged = String(repeating: "0", count: 63) + "X"
        try dir.write(
            "out/towns/manifest.json",
            try dir.read("out/towns/manifest.json").replacingOccurrences(of: recorded, with: damaged))
        #expect(try run().status == 0)
        #expect(try Self.listedHash(dir) == real)

        // The same bytes written again: another stamp, so the file is hashed.
        _ = try dir.write("cities.json", Self.cities)
        #expect(try run().status == 0)
        #expect(try Self.listedHash(dir) == real)

        // A first run into another folder hashes it too.
        #expect(try CLI.run(["run", "pipeline.yml", "--out", "fresh"], cwd: dir.path).status == 0)
        let fresh = try JSONFile.value(at: dir.path + "/fresh/towns/manifest.json")
        guard case .array(let inputs)? = fresh.member("inputs") else {
            Issue.record("no inputs")
            return
        }
        #expect(inputs.first?.member("sha256")?.string == real)
    }

    @Test func stampsReadBackAsTheyAreWritten() throws {
        let stamp = FileStamp(bytes: 67_108_864, inode: 1_234_567, modified: 1_795_733_426_531_826_490, changed: 17)
        #expect(FileStamp(text: stamp.text) == stamp)
        for text in ["", "1:2:3", "1:2:3:4:5", "a:2:3:4", "1:2::4", "-1:2:3:x"] {
            #expect(FileStamp(text: text) == nil, "\(text)")
        }
    }
}
