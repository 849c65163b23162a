import Testing

@testable import SeedForge

/// `normalize: to-boolean`, over a pipeline that also splits (`SplitTests` reads its lists).
@Suite("Normalize: to-boolean")
struct ToBooleanTests {
    static let yaml = """
        name: t
        sources:
          places: {kind: json, path: places.json, fields: {open: any, tags: string}}
        steps:
          - normalize: to-boolean
            collection: places
            field: open
            into: isOpen
            true: [yes, open, "1"]
            false: [no, closed, "0"]
            unmapped: null
          - normalize: split
            collection: places
            field: tags
            separator: " / "
            into: tagList
        outputs:
          - {file: places.json, collection: places}
        """

    static let places =
        #"[{"open":"OPEN","tags":"Beach / Hike"},{"open":0,"tags":"Beach"},{"open":true,"tags":" / "},{"open":"maybe"},{"open":null}]"#

    @Test func spellingsBecomeBooleans() throws {
        let result = try Harness.run(Self.yaml, files: ["places.json": Self.places])
        let places = result.records("places")
        #expect(places.map { $0["isOpen"] } == [.bool(true), .bool(false), .bool(true), .null, .null])
        #expect(result.state.warnings.map(\.finding.rule) == ["boolean"])
        #expect(
            result.state.warnings.first?.finding.message.hasPrefix(#"open "maybe" is not a spelling of true or false"#)
                == true)
    }

    @Test func aSpellingOfBothIsADefinitionError() {
        let errors = Harness.definitionErrors(
            """
            name: t
            sources:
              places: {kind: json, path: data.json, fields: {open: string}}
            steps:
              - normalize: to-boolean
                collection: places
                field: open
                into: isOpen
                true: [yes, Y]
                false: [no, y]
            outputs:
              - {file: places.json, collection: places}
            """)
        #expect(errors.first?.line == 10)
        #expect(errors.first?.message == "'y' is a spelling of both true and false")
    }
}
