import Foundation
import Testing

@testable import SeedForge

/// Issue 18: text steps `template`, `coalesce` and `replace`.
@Suite("Normalize: template, coalesce, replace")
struct TextStepsTests {
    static func run(_ steps: String, _ records: String) throws -> RunResult {
        try Harness.run(
            """
            name: t
            sources:
              shops: {kind: json, path: shops.json, fields: {name: string, nick: string, address: string, city: string, rating: number}}
            steps:
            \(steps)
            outputs:
              - {file: shops.json, collection: shops}
            """, files: ["shops.json": records])
    }

    @Test func templateLeavesOutMissingFieldsWithTheirSeparator() throws {
        // Text between two placeholders goes with the field after it; text before the
        // first and after the last is always written; {{ and }} are braces.
        let result = try Self.run(
            """
              - normalize: template
                collection: shops
                template: "{{{name}: {address}, {city}}} – {rating}"
                into: line
            """,
            #"[{"name":"Hive","address":"1 Bee St","city":"Turin","rating":4.5},{"name":"Comb","address":null,"city":"Ghent","rating":4},{"name":null,"address":"","city":null}]"#
        )
        #expect(
            result.records("shops").map { $0["line"] } == [
                .string("{Hive: 1 Bee St, Turin} – 4.5"), .string("{Comb, Ghent} – 4"), .null,
            ])
    }

    @Test func templateNullFieldsNullMakesTheResultNull() throws {
        let result = try Self.run(
            """
              - normalize: template
                collection: shops
                template: "{address}, {city}"
                into: line
                null-fields: null
            """, #"[{"address":"1 Bee St","city":"Turin"},{"address":"12 Rue du Miel","city":null}]"#)
        #expect(result.records("shops").map { $0["line"] } == [.string("1 Bee St, Turin"), .null])
    }

    @Test func templateMistakesAreDefinitionErrorsOnTheirLine() {
        func error(_ template: String) -> String? {
            Harness.definitionErrors(
                """
                name: t
                sources:
                  shops: {kind: json, path: data.json, fields: {name: string}}
                steps:
                  - normalize: template
                    collection: shops
                    template: "\(template)"
                    into: line
                outputs:
                  - {file: shops.json, collection: shops}
                """
            ).first.map { "\($0.line): \($0.message)" }
        }
        #expect(
            error("{nam}")?.hasPrefix("7: unknown field 'nam' in collection 'shops'; did you mean 'name'?") == true,
            "\(error("{nam}") ?? "")")
        #expect(error("{name") == "7: 'template' has an unmatched '{'; write {{ or }} for a brace")
        #expect(error("plain") == "7: 'template' names no field; write placeholders such as {city}")
        #expect(error("{}") == "7: 'template' has an empty placeholder {}; name a field, or write {{ for a brace")
    }

    @Test func coalesceTakesTheFirstValue() throws {
        let result = try Self.run(
            """
              - normalize: coalesce
                collection: shops
                from: [nick, name]
                into: label
            """, #"[{"nick":"Hive","name":"The Hive"},{"nick":"  ","name":"Golden Comb"},{"nick":null,"name":null}]"#)
        #expect(result.records("shops").map { $0["label"] } == [.string("Hive"), .string("Golden Comb"), .null])
        #expect(result.state.schemas["shops"]!.fields.last?.type == .string)
    }

    @Test func replaceRewritesMatchesAndCountsChangedRecords() throws {
        let result = try Self.run(
            """
              - normalize: replace
                collection: shops
                field: name
                pattern: "\\\\s*\\\\((temporarily )?closed\\\\)$"
                with: ""
                ignore-case: true
              - normalize: replace
                collection: shops
                field: address
                pattern: "^(\\\\d+) (.*)$"
                with: "$2 $1"
                into: streetFirst
            """,
            #"[{"name":"The Hive (closed)","address":"1 Bee St"},{"name":"Comb (Temporarily Closed)"},{"name":"Drone"}]"#
        )
        let shops = result.records("shops")
        #expect(shops.map { $0["name"] } == [.string("The Hive"), .string("Comb"), .string("Drone")])
        #expect(shops.map { $0["streetFirst"] } == [.string("Bee St 1"), .null, .null])
        #expect(shops[0]["address"] == .string("1 Bee St"), "into leaves the field as read")
        let stats = result.state.stepStats.filter { $0.label.hasPrefix("normalize: replace") }
        #expect(stats.map(\.changed) == [2, 1])
    }

    @Test func replaceRefusesABadPatternAndNonTextFields() {
        func error(_ field: String, _ pattern: String) -> String? {
            Harness.definitionErrors(
                """
                name: t
                sources:
                  shops: {kind: json, path: data.json, fields: {name: string, rating: number}}
                steps:
                  - normalize: replace
                    collection: shops
                    field: \(field)
                    pattern: "\(pattern)"
                    with: x
                outputs:
                  - {file: shops.json, collection: shops}
                """
            ).first.map { "\($0.line): \($0.message)" }
        }
        #expect(error("name", "(unclosed") == "8: 'pattern' is not a valid ICU regular expression: (unclosed")
        #expect(error("rating", "a") == "7: 'rating' is number; replace rewrites text fields")
    }
}

/// The three steps through the real CLI on `Fixtures/text-steps/`.
@Suite("End to end: text steps", .serialized)
struct TextStepsEndToEndTests {
    @Test func labelsAddressLinesAndStrippedNames() throws {
        let dir = try TempDir()
        let result = try CLI.run(["run", "Fixtures/text-steps/shop-labels.yml", "--out", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        let shops = try #require(jsonObject(dir.bytes("shop-labels/shops.json")) as? [[String: Any]])
        #expect(
            shops.map { $0["name"] as? String } == [
                "The Hive", "Golden Comb", "Nectar & Co", "Drone Honey", "Farmers’ Market Café",
            ])
        #expect(
            shops.map { $0["label"] as? String } == [
                "The Hive", "Comb", "Nectar & Co", "Drone", "Farmers’ Market Café",
            ])
        #expect(
            shops.map { $0["addressLine"] as? String } == [
                "1 Bee St, Turin (IT)", "12 Rue du Miel (FR)", "Ghent (BE)", nil, "2 Quay St, Brisbane (AU)",
            ])
        let manifest = try #require(jsonObject(dir.bytes("shop-labels/manifest.json")) as? [String: Any])
        let steps = try #require(manifest["steps"] as? [[String: Any]])
        #expect(steps.first { $0["step"] as? String == "normalize: replace" }?["changed"] as? Int == 2)
        #expect(steps.first { $0["step"] as? String == "normalize: coalesce" }?["changed"] == nil)
        #expect(steps.first { $0["step"] as? String == "normalize: repair-text" }?["changed"] as? Int == 1)
        #expect(shops.map { $0["isOpen"] as? Bool } == [false, true, true, nil, true])
        #expect(
            shops.map { $0["products"] as? [String] } == [
                ["honey", "candles"], ["honey"], nil, ["pollen", "propolis"], ["honey"],
            ])
        let rejects = try dir.read("shop-labels/rejects.ndjson")
        #expect(rejects.contains(#""rule":"boolean""#) && rejects.contains(#""id":"queen""#), "\(rejects)")
        let kinds = try CLI.run(["kinds"])
        for kind in ["template", "coalesce", "replace", "to-boolean", "split", "repair-text"] {
            #expect(kinds.stdout.contains(kind))
        }
    }
}

/// Issue 18: `to-boolean` and `split`.
@Suite("Normalize: to-boolean, split")
struct BooleanAndSplitTests {
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

    @Test func spellingsBecomeBooleansAndTextBecomesLists() throws {
        let result = try Harness.run(
            Self.yaml,
            files: [
                "places.json":
                    #"[{"open":"OPEN","tags":"Beach / Hike"},{"open":0,"tags":"Beach"},{"open":true,"tags":" / "},{"open":"maybe"},{"open":null}]"#
            ])
        let places = result.records("places")
        #expect(places.map { $0["isOpen"] } == [.bool(true), .bool(false), .bool(true), .null, .null])
        #expect(
            places.map { $0["tagList"] } == [
                .array([.string("Beach"), .string("Hike")]), .array([.string("Beach")]), .array([]), .null, .null,
            ])
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

/// Issue 18: `repair-text` undoes UTF-8 read as Windows-1252, only where certain.
@Suite("Normalize: repair-text")
struct RepairTextTests {
    @Test func mojibakeIsRepaired() {
        #expect(RepairText.repaired("Farmersâ€™") == "Farmers’")
        #expect(RepairText.repaired("CafÃ© & crÃ¨me") == "Café & crème")
        #expect(RepairText.repaired("ZÃ¼rich â€“ Honig") == "Zürich – Honig")
        #expect(RepairText.repaired("ðŸ\u{90}\u{9D}") == "🐝", "a four-byte emoji through an unassigned byte")
    }

    @Test func whatIsNotCertainlyMojibakeStays() {
        #expect(RepairText.repaired("SÃO PAULO") == nil, "real Ã: C3 then O is not UTF-8")
        #expect(RepairText.repaired("Café") == nil, "é alone is not a UTF-8 sequence")
        #expect(RepairText.repaired("Farmers’ Market") == nil, "already right")
        #expect(RepairText.repaired("CafÃ© 東京") == nil, "a character outside Windows-1252: not mojibake of UTF-8")
        #expect(RepairText.repaired("plain ASCII") == nil)
    }
}
