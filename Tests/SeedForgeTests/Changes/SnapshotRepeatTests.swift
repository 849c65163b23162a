import Foundation
import Testing

@testable import SeedForge

/// A rerun that writes the previous snapshot again is found equal as the snapshot is
/// written, without reading the files back; anything else is compared from the files.
@Suite("Changes: a snapshot written again")
struct SnapshotRepeatTests {
    static let previous = Array(
        """
        {"format":"seedforge-snapshot","version":1,"dataset":"cities"}
        {"collection":"cities","key":["id"],"fields":["id","name"],"records":2}
        [1,"Hurzuf"]
        [2,"Novinki"]

        """.utf8)

    /// A dataset folder holding `bytes` as its snapshot.
    static func folder(_ bytes: [UInt8]) throws -> TempDir {
        let dir = try TempDir()
        _ = try dir.write("dataset/" + Snapshot.file, bytes: bytes)
        return dir
    }

    /// Feeds `pieces` to a check against `folder`'s dataset.
    static func repeated(_ pieces: [[UInt8]], in dir: TempDir) -> Bool {
        var check = SnapshotRepeat(previousFolder: dir.path + "/dataset")
        for piece in pieces { check.check(piece) }
        return check.repeated()
    }

    /// `bytes` cut before each of `cuts`.
    static func pieces(_ bytes: [UInt8], cutAt cuts: [Int]) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var start = 0
        for cut in cuts.sorted() + [bytes.count] {
            pieces.append(Array(bytes[start..<cut]))
            start = cut
        }
        return pieces
    }

    @Test func theSameBytesInAnyPiecesAreARepeatAndNothingElseIs() throws {
        let dir = try Self.folder(Self.previous)
        let bytes = Self.previous
        #expect(Self.repeated([bytes], in: dir))
        #expect(Self.repeated(Self.pieces(bytes, cutAt: [0, 1, 64, 65, 100, bytes.count - 1]), in: dir))
        #expect(Self.repeated(Self.pieces(bytes, cutAt: Array(stride(from: 0, to: bytes.count, by: 7))), in: dir))
        // One byte changed, anywhere.
        for position in [0, 70, bytes.count - 2, bytes.count - 1] {
            var changed = bytes
            changed[position] ^= 0x01
            #expect(!Self.repeated(Self.pieces(changed, cutAt: [50]), in: dir), "byte \(position) changed")
        }
        // Shorter or longer than the previous file.
        #expect(!Self.repeated([Array(bytes.dropLast())], in: dir))
        #expect(!Self.repeated([bytes, [0x0A]], in: dir))
        #expect(!Self.repeated([], in: dir))
        // No previous snapshot (a first run, a dataset from before snapshots): never a repeat.
        let empty = try TempDir()
        #expect(!Self.repeated([bytes], in: empty))
        _ = try empty.write("dataset/manifest.json", "{}")
        #expect(!Self.repeated([bytes], in: empty))
    }

    /// The counts a forced rerun records in its manifest when it wrote the same snapshot
    /// are the ones comparing the two files gives (keys, counts, a collection without a
    /// key); a rerun that changes a record still finds the change.
    @Test func aRerunOnTheSameInputsRecordsWhatComparingTheFilesFinds() throws {
        let dir = try TempDir()
        _ = try dir.write(
            "cities.json",
            #"[{"id": 1, "name": "Hurzuf", "pop": 10}, {"id": 2, "name": "Novinki", "pop": 20}, {"id": 3, "name": "Gorkhā", "pop": 30}]"#
        )
        _ = try dir.write("notes.json", #"[{"text": "first"}, {"text": "second"}]"#)
        _ = try dir.write(
            "pipeline.yml",
            """
            name: towns
            sources:
              cities:
                kind: json
                path: cities.json
                id: id
                fields: {id: integer, name: string, pop: integer}
              notes:
                kind: json
                path: notes.json
                fields: {text: string}
            outputs:
              - file: cities.json
                collection: cities
              - file: notes.ndjson
                collection: notes
            """)
        let first = try CLI.run(["run", "pipeline.yml", "--out", "out"], cwd: dir.path)
        #expect(first.status == 0, "\(first.stderr)")
        let firstSnapshot = try dir.bytes("out/towns/" + Snapshot.file)
        let again = try CLI.run(["run", "pipeline.yml", "--out", "out", "--force"], cwd: dir.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try dir.bytes("out/towns/" + Snapshot.file) == firstSnapshot, "the rerun wrote another snapshot")
        #expect(again.stdout.contains("towns: cities +0 \u{2212}0 ~0, notes +0 \u{2212}0 ~0 since the last run\n"))

        // What comparing the previous and the new file finds (they are the same bytes).
        let snapshot = try Snapshot(storage: FileBytes.read(path: dir.path + "/out/towns/" + Snapshot.file))
        let fromFiles = ChangeComparison.compare(previous: .success(snapshot), current: snapshot)
        let manifest = try JSONFile.value(at: dir.path + "/out/towns/manifest.json")
        #expect(manifest.member("changes") == fromFiles.manifestValue())
        #expect(fromFiles.collection("notes")?.key == [] && fromFiles.collection("cities")?.unchanged == 3)

        // A record that changes is still found, from the files.
        _ = try dir.write(
            "cities.json",
            #"[{"id": 1, "name": "Gurzuf", "pop": 10}, {"id": 2, "name": "Novinki", "pop": 20}, {"id": 3, "name": "Gorkhā", "pop": 30}]"#
        )
        let changed = try CLI.run(["run", "pipeline.yml", "--out", "out"], cwd: dir.path)
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stdout.contains("towns: cities +0 \u{2212}0 ~1, notes +0 \u{2212}0 ~0 since the last run\n"))
        #expect(try dir.read("out/towns/changes.ndjson").contains(#""old":"Hurzuf","new":"Gurzuf""#))
    }
}
