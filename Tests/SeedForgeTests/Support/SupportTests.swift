import Foundation
import Testing

@testable import SeedForge

@Suite("SHA-256")
struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func standardVectors(input: String, digest: String) {
        #expect(SHA256.hex(input.utf8) == digest)
    }

    @Test func aMillionBytesMatchesSha256sum() {
        // printf 'a%.0s' {1..1000000} | sha256sum
        #expect(
            SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

@Suite("Collation")
struct CollationTests {
    @Test(arguments: [
        ("Gorkhā", "gorkha"), ("Zürich", "zurich"), ("Straße", "strasse"), ("ﬁsh", "fish"),
        ("Łódź", "lodz"), ("Æble", "aeble"), ("Øresund", "oresund"), ("Œuvre", "oeuvre"),
        ("Đà Nẵng", "da nang"), ("Þingvellir", "thingvellir"), ("ＡＢＣ", "abc"), ("Hurzuf", "hurzuf"),
    ])
    func foldsCaseDiacriticsAndTheDocumentedExtras(text: String, key: String) {
        #expect(Collation.key(text) == key)
    }

    @Test func theLatinFastPathGivesExactlyWhatFoundationGives() {
        // Every character below U+0250 alone, and seeded random names mixing them.
        for value in 0x20..<0x250 {
            let text = String(Character(Unicode.Scalar(UInt32(value))!))
            #expect(Collation.latinKey(text) == Collation.foundationKey(text), "U+\(String(value, radix: 16))")
        }
        var seed: UInt64 = 42
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<2_000 {
            var text = ""
            for _ in 0..<(1 + next(12)) {
                let value = next(4) == 0 ? 0x20 + next(0x5F) : 0xC0 + next(0x250 - 0xC0)
                text.unicodeScalars.append(Unicode.Scalar(UInt32(value))!)
            }
            #expect(Collation.latinKey(text) == Collation.foundationKey(text), "\(text)")
        }
    }

    @Test func nfcQuickCheckLeavesComposedTextAlone() {
        #expect(UnicodeNormalize.nfc("Qaraçala") == "Qaraçala")
        #expect(UnicodeNormalize.nfc("Qualita\u{308}t") == "Qualität")
        #expect(UnicodeNormalize.nfc("Qualita\u{308}t").unicodeScalars.count == 8)
    }

    @Test func ordersByKeyThenExactText() {
        let names = ["zeta", "Ápiculture", "apiculture", "Bienenhaus", "Éclair", "eclair"]
        let sorted = names.sorted { Collation.compare($0, $1) == .orderedAscending }
        #expect(
            sorted
                == ["Ápiculture", "apiculture", "Bienenhaus", "Éclair", "eclair", "zeta"].sorted {
                    Collation.compare($0, $1) == .orderedAscending
                })
        #expect(sorted.first.map(Collation.key) == "apiculture")
        #expect(Collation.compare("Éclair", "eclair") != .orderedSame)
        #expect(Collation.compare("Alabama", "albuquerque") == .orderedAscending)
    }
}

@Suite("Timestamps")
struct TimestampTests {
    @Test(arguments: [
        ("2025-09-17T10:15:00Z", 1_758_104_100.0),
        ("2025-09-17T12:15:00+02:00", 1_758_104_100.0),
        ("2025-09-17t10:15:00.250z", 1_758_104_100.25),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("1970-01-01T00:00:00-00:30", 1800.0),
    ])
    func parsesValidTimestamps(text: String, seconds: Double) {
        #expect(Timestamp.parse(text) == seconds)
    }

    @Test(arguments: [
        "2025-02-30T10:00:00Z", "2023-02-29T00:00:00Z", "2025-13-01T00:00:00Z", "2025-09-17T24:00:00Z",
        "2025-09-17T10:15:00", "2025-09-17", "yesterday", "2025-09-17T10:15:00+2:00", "2025-09-17T10:15:00.Z",
        "2025-09-17T10:15:00Z trailing",
    ])
    func rejectsInvalidTimestamps(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }
}

@Suite("Paths and globs")
struct GlobTests {
    @Test func naturalOrderPutsPage2BeforePage10() {
        let names = ["page-10.json", "page-2.json", "page-1.json", "page-02b.json"]
        #expect(names.sorted(by: Glob.naturalLess) == ["page-1.json", "page-2.json", "page-02b.json", "page-10.json"])
    }

    @Test func expandsGlobsToFilesInNaturalOrder() throws {
        let dir = try TempDir()
        for name in ["p-10.json", "p-2.json", "p-1.json", "other.txt"] { try dir.write(name, "[]") }
        try FileManager.default.createDirectory(atPath: dir.path + "/p-3.json", withIntermediateDirectories: true)
        let files = Glob.expand(dir.path + "/p-*.json").map { ($0 as NSString).lastPathComponent }
        #expect(files == ["p-1.json", "p-2.json", "p-10.json"])
    }

    @Test func suggestsTheNearestName() {
        #expect(Suggestion.nearest(to: "feilds", in: ["fields", "id", "kind"]) == "fields")
        #expect(Suggestion.nearest(to: "collection", in: ["collections"]) == "collections")
        #expect(Suggestion.nearest(to: "zzzzzz", in: ["fields", "id"]) == nil)
    }

    @Test func globTiesAreOrderedByBytes() {
        #expect(Glob.naturalLess("page-02.json", "page-2.json"))
        #expect(!Glob.naturalLess("page-2.json", "page-02.json"))
    }

    @Test func relativePathsFromThePipelineFolder() {
        #expect(Paths.relative("/repo/Fixtures/a/shops.json", to: "/repo/pipelines") == "../Fixtures/a/shops.json")
        #expect(Paths.relative("/repo/pipelines/data.json", to: "/repo/pipelines/") == "data.json")
    }
}
