import Foundation
import Testing

@testable import SeedForge

@Suite("Normalize: search-key")
struct SearchKeyTests {
    @Test func searchKeysMadeInPlaceAreTheKeysOfTheText() throws {
        // ASCII names with nothing to collapse take the in-place path (lowered bytes); the
        // others the general one: both must give `SearchKey.key` of the text.
        let names = [
            "Saint Louis", "ABC-def 123", "x", "New  York", " Lead", "Zürich", "UPPER lower", "Ströme\\tTab",
            "O'Fallon", "a very long ascii name that is over fifteen bytes",
        ]
        let records = names.enumerated().map { #"{"id":\#($0.offset),"name":"\#($0.element)"}"# }
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- normalize: search-key\n  collection: items\n  from: name\n  field: key",
            records: "[" + records.joined(separator: ",") + "]")
        let made = result.records("items")
        #expect(made.count == names.count)
        for (index, record) in made.enumerated() {
            let name = names[index].replacingOccurrences(of: "\\t", with: "\t")
            #expect(record["key"] == .string(SearchKey.key(name)), "\(name)")
            #expect(record["name"] == .string(name))
        }
    }
}
