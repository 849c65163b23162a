import Testing

@testable import SeedForge

/// `normalize: trim`: collapsing white space, empty text to null.
@Suite("Normalize: trim")
struct TrimTests {
    @Test func trimCollapsesAndTurnsEmptyIntoNull() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string\nnote: string",
            steps: "- normalize: trim\n  collection: items\n  collapse-whitespace: true",
            records: #"[{"id":1,"name":"  Bienenhaus   Zürich\t","note":"  \n "}]"#)
        #expect(result.records("items")[0]["name"] == .string("Bienenhaus Zürich"))
        #expect(result.records("items")[0]["note"] == .null)
    }

    @Test func textJudgedCleanIsWhatCollapsingCharacterByCharacterGives() {
        let reference = Trim.collapsedByCharacter
        let pieces = [
            "a", "Zü", " ", "  ", "\t", "\n", "\u{85}", "\u{A0}", "\u{1680}", "\u{2003}", "\u{200A}", "\u{200B}",
            "\u{2028}",
            "\u{202F}", "\u{205F}", "\u{3000}", "\u{301}", "\u{600}", "é", "ł", "🐝", "东京", "-",
        ]
        var generator = SplitMix64(state: 25)
        var checked = 0
        for _ in 0..<20_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...6, using: &generator) { text += pieces.randomElement(using: &generator)! }
            if Trim.isClean(text) {
                checked += 1
                #expect(reference(text) == text, "\(Array(text.unicodeScalars))")
            }
        }
        #expect(checked > 1_000)
    }

    @Test func trimLeavesInnerSpaceUnlessAsked() {
        #expect(Trim.trimmed("\u{00A0} a  b \n") == "a  b")
        #expect(Trim.collapsed(" a \t\n b  ") == "a b")
    }
}
