import Foundation
import Testing

@testable import SeedForge

/// Issue 18: the CSV formula guard prefixed `'` to phone numbers (`+1-604-…`) with no way
/// to turn it off. It stays on by default; `plain-fields` and `neutralise-formulas: false`
/// leave text as it is.
@Suite("End to end: CSV formula guard options", .serialized)
struct CSVFormulaGuardEndToEndTests {
    @Test func phoneNumbersStayPlainWhereTheOutputSaysSo() throws {
        let dir = try TempDir()
        let result = try CLI.run(["run", "Fixtures/contacts/contacts.yml", "--out", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        let app = try dir.read("contacts/contacts.csv").components(separatedBy: "\r\n")
        #expect(app[1] == "granville-honey,Granville Island Honey,+1-604-555-0142,Cash only")
        // Other fields keep the guard.
        #expect(app[2] == #"kitsilano-bees,Kitsilano Bee Co.,+1 (604) 555-0199,"'=HYPERLINK(""http://evil.example"")""#)
        #expect(app[4] == "main-street-hives,'@MainStreetHives,,'+ seasonal comb honey")
        let people = try dir.read("contacts/spreadsheet.csv").components(separatedBy: "\r\n")
        #expect(
            people[1] == "granville-honey,Granville Island Honey,'+1-604-555-0142,Cash only", "the default is unchanged"
        )
    }

    @Test func theGuardCanBeTurnedOffForAFile() throws {
        let dir = try TempDir()
        try dir.write("shops.json", #"[{"phone":"+1-604-555-0142"},{"phone":"=1+1"}]"#)
        try dir.write(
            "p.yml",
            """
            name: t
            sources:
              shops: {kind: json, path: shops.json, fields: {phone: string}}
            outputs:
              - {file: shops.csv, collection: shops, neutralise-formulas: false}
            """)
        let result = try CLI.run(["run", "p.yml", "--out", "out"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try dir.read("out/t/shops.csv") == "phone\r\n+1-604-555-0142\r\n=1+1\r\n")
    }

    @Test func plainFieldsWithTheGuardOffIsADefinitionError() {
        let errors = Harness.definitionErrors(
            """
            name: t
            sources:
              shops: {kind: json, path: data.json, fields: {phone: string}}
            outputs:
              - file: shops.csv
                collection: shops
                neutralise-formulas: false
                plain-fields: [phone]
            """)
        #expect(errors.first?.line == 8)
        #expect(errors.first?.message.contains("'plain-fields' has no effect") == true, "\(errors)")
        let unknown = Harness.definitionErrors(
            """
            name: t
            sources:
              shops: {kind: json, path: data.json, fields: {phone: string}}
            outputs:
              - {file: shops.csv, collection: shops, plain-fields: [phon]}
            """)
        #expect(unknown.first?.message.contains("unknown field 'phon'") == true, "\(unknown)")
    }
}
