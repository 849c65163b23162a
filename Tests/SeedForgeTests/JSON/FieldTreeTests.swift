import Testing

@testable import SeedForge

/// The fast reader (declared fields straight from the bytes) must agree with the general
/// reader on every record it accepts, and hand every other record back.
@Suite("JSON: reading declared fields only")
struct FieldTreeTests {
    static let mapping = FieldMapping(
        fields: [
            FieldSpec(name: "id", type: .integer, sourcePath: FieldPath(parsing: "/_id")),
            FieldSpec(name: "name", type: .string, sourcePath: FieldPath(parsing: "/name")),
            FieldSpec(name: "lat", type: .number, sourcePath: FieldPath(parsing: "/coord/lat")),
            FieldSpec(name: "first", type: .any, sourcePath: FieldPath(parsing: "/tags/0")),
            FieldSpec(name: "meta", type: .object, sourcePath: FieldPath(parsing: "/meta")),
        ], unknownFields: .ignore)

    static let records: [(String, Bool)] = [
        (#"{"_id": 1, "name": "Hurzuf", "coord": {"lon": 34.28, "lat": 44.55}, "tags": ["a", "b"], "meta": {}}"#, true),
        (#"{"name": "No id"}"#, true),
        (#"{"_id": 136256.0, "name": "Float id"}"#, true),
        (#"{"_id": 2, "extra": {"deep": [1, {"x": null}]}, "name": "Unknown keys skipped"}"#, true),
        (#"{"_id": 3, "coord": [44.5, 34.2], "name": "coord is an array"}"#, true),
        (#"{"_id": 4, "coord": "north", "tags": {"0": "object with key 0"}}"#, true),
        (#"{"_id": 5, "name": "esc\"aped \u00e9"}"#, true),
        (#"{"_id": "6", "name": "wrong id type"}"#, false),
        (#"{"_id": 7, "name": 7}"#, false),
        (#"{"_id": 8, "name": "dup", "name": "licate"}"#, false),
        (#"{"_id": 9, "extra": 1, "extra": 2}"#, false),
        (#"{"_id": 10, "meta": {"k": 1, "k": 2}}"#, false),
        (#"{"_id": 11, "coord": {"lat": 1, "lat": 2}}"#, false),
        (#"{"_id": 12, "n\u0061me": "escaped key"}"#, false),
        (#"[1, 2]"#, false),
        (#""just text""#, false),
    ]

    /// With the mapping's own tree, and with the copy each parsing thread reads
    /// (`ownTree`).
    @Test(arguments: [false, true]) func fastAndGeneralReadersAgree(copiedTree: Bool) throws {
        let mapping = copiedTree ? Self.mapping.ownTree() : Self.mapping
        let source = SourceText(displayPath: "x", bytes: [])
        defer { withExtendedLifetime(source) {} }
        for (text, expectClean) in Self.records {
            let bytes = Array(text.utf8)
            let origin = Origin(source: source, offset: 0, index: 0)
            let fast: Record? = try bytes.withUnsafeBufferPointer { buffer in
                var reader = JSONReader(bytes: buffer)
                var values = RowBuilder()
                return try mapping.readClean(&reader, origin: origin, values: &values)
            }
            let raw = try bytes.withUnsafeBufferPointer { buffer in
                var reader = JSONReader(bytes: buffer)
                return try reader.readValue()
            }
            let general = Self.mapping.map(raw, origin: origin)
            if let fast {
                #expect(general.findings.isEmpty, "\(text)")
                #expect(fast.values == general.record?.values, "\(text)")
            }
            #expect((fast != nil) == expectClean, "\(text)")
        }
    }

    @Test func plainPathsMakeATreeAndConflictingOnesDoNot() {
        #expect(FieldTree(paths: ["/a", "/b/c", "/b/d", "/e/0"].map { FieldPath(parsing: $0)! }) != nil)
        #expect(FieldTree(paths: ["/a", "/a/b"].map { FieldPath(parsing: $0)! }) == nil)
        #expect(FieldTree(paths: ["/a", "/a"].map { FieldPath(parsing: $0)! }) == nil)
        #expect(FieldTree(paths: ["/list/01"].map { FieldPath(parsing: $0)! }) == nil)
    }
}
