import Testing

@testable import SeedForge

/// `aggregate: sort`: collation, ties, timestamps and numbers.
@Suite("Aggregate: sort")
struct SortTests {
    @Test func sortUsesTheCollationThenTies() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- aggregate: sort\n  collection: items\n  by: [name, id]",
            records:
                #"[{"id":4,"name":"zeta"},{"id":3,"name":"Éclair"},{"id":2,"name":"apple"},{"id":1,"name":"Eclair"},{"id":6},{"id":5,"name":"Ápple"}]"#
        )
        // Equal keys ("apple", "eclair") are ordered by their NFC text in byte order.
        #expect(RuleHarness.keptIDs(result) == [.int(2), .int(5), .int(1), .int(3), .int(4), .int(6)])
    }

    @Test func sortsTimestampsByInstantNewestFirst() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nat: string",
            steps:
                "- aggregate: sort\n  collection: items\n  by:\n    - {field: at, order: desc, as: timestamp}\n    - id",
            records:
                #"[{"id":1,"at":"2025-10-02T14:30:00+08:00"},{"id":2,"at":"2025-10-02T08:00:00Z"},{"id":3,"at":"2025-10-02T06:31:00Z"},{"id":4}]"#
        )
        #expect(RuleHarness.keptIDs(result) == [.int(2), .int(3), .int(1), .int(4)])
    }

    @Test func numbersSortNumerically() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nn: number",
            steps: "- aggregate: sort\n  collection: items\n  by: [{field: n, order: desc}]",
            records: #"[{"id":1,"n":10},{"id":2,"n":9.5},{"id":3,"n":100},{"id":4,"n":-1}]"#)
        #expect(RuleHarness.keptIDs(result) == [.int(3), .int(1), .int(2), .int(4)])
    }
}

/// A spilled sort makes each key from the record's spilled bytes (`Sort.appendKey(encoded:to:)`):
/// the bytes must be those of the key of the record itself, for every kind of value, every
/// key option, and records that hold fewer values than the key reads.
@Suite("Aggregate: sort keys from spilled bytes")
struct SortEncodedKeyTests {
    static func sortStep() throws -> Sort {
        let dir = try TempDir()
        _ = try dir.write("data.json", "[]")
        let pipeline = try Loader.load(
            yaml: """
                name: keys
                sources:
                  items:
                    kind: json
                    path: data.json
                    fields: {a: string, b: string, c: string, d: string, e: string}
                steps:
                  - aggregate: sort
                    collection: items
                    by:
                      - a
                      - {field: b, order: desc}
                      - {field: c, collation: exact}
                      - {field: d, order: desc, as: timestamp}
                      - {field: e, order: desc, collation: exact}
                      - a
                outputs:
                  - {file: items.json, collection: items}
                """, file: "keys.yml", baseDirectory: dir.path)
        let sorts = pipeline.steps.compactMap { step -> Sort? in
            guard case .step(let sort as Sort, _, _) = step else { return nil }
            return sort
        }
        return try #require(sorts.first)
    }

    @Test func aKeyFromSpilledBytesIsTheKeyOfTheRecord() throws {
        let sort = try Self.sortStep()
        #expect(sort.keys.count == 6)
        let source = SourceText(displayPath: "x.json", bytes: Array("[]".utf8))
        let codec = RecordCodec(sources: [source])
        var object = JSONObject()
        object.appendUnchecked("k", .array([.int(1), .string("é")]))
        let palette: [Value] = [
            .string("Kyiv"), .string("kyiv"), .string(""), .string("Éclair"), .string("Straße"), .string("a\u{0}b"),
            .string("São Paulo"), .string("2025-10-02T14:30:00+08:00"), .string("2025-10-02T06:31:00Z"),
            .string("not a time"), .int(-7), .int(Int64.max), .double(2.5), .double(-0.0), .decimal("12.50"),
            .bool(true), .bool(false), .null, .array([.int(3), .null]), .object(object),
            .string(String(repeating: "z", count: 200)),
        ]
        let width = sort.fieldsRead + 2
        var generator = SplitMix64(state: 37)
        var checked = 0
        for length in 0...width {
            for _ in 0..<300 {
                let values = (0..<length).map { _ in palette.randomElement(using: &generator)! }
                let record = Record(values: values, origin: Origin(source: source, offset: 5, index: 1))
                var bytes: [UInt8] = []
                codec.encode(record, into: &bytes)
                var expected = ByteKey()
                sort.appendKey(of: record, to: &expected)
                var actual = ByteKey()
                bytes.withUnsafeBufferPointer { sort.appendKey(encoded: $0, to: &actual) }
                #expect(actual == expected, "\(values)")
                checked += 1
            }
        }
        #expect(checked > 1_000)
    }
}
