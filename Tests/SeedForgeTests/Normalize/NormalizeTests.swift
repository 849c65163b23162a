import Testing

@testable import SeedForge

@Suite("Normalize")
struct NormalizeTests {
    @Test func trimCollapsesAndTurnsEmptyIntoNull() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string\nnote: string",
            steps: "- normalize: trim\n  collection: items\n  collapse-whitespace: true",
            records: #"[{"id":1,"name":"  Bienenhaus   Zürich\t","note":"  \n "}]"#)
        #expect(result.records("items")[0]["name"] == .string("Bienenhaus Zürich"))
        #expect(result.records("items")[0]["note"] == .null)
    }

    @Test func controlCharactersAreExactlyUnicodesControlCategory() {
        let disagreeing = (UInt32(0)...0x10FFFF).compactMap(Unicode.Scalar.init).filter {
            UnicodeNormalize.isControl($0) != ($0.properties.generalCategory == .control)
        }
        #expect(disagreeing.isEmpty, "\(disagreeing.prefix(5).map { "U+" + String($0.value, radix: 16) })")
        #expect(UnicodeNormalize.normalized("a\u{85}b\tc\u{7F}", stripControl: true) == "ab c")
        #expect(UnicodeNormalize.isPrintableASCII("Hurzuf 2"))
        #expect(!UnicodeNormalize.isPrintableASCII("Zu\u{308}rich"))
        #expect(!UnicodeNormalize.isPrintableASCII("tab\there"))
    }

    @Test func textJudgedCleanIsWhatCollapsingCharacterByCharacterGives() {
        let reference = Trim.collapsedByCharacter
        let pieces = [
            "a", "Zü", " ", "  ", "\t", "\n", "\u{85}", "\u{A0}", "\u{1680}", "\u{2003}", "\u{200A}", "\u{200B}",
            "\u{2028}",
            "\u{202F}", "\u{205F}", "\u{3000}", "\u{301}", "\u{600}", "é", "ł", "🐝", "东京", "-",
        ]
        var generator = SystemRandomNumberGenerator()
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

    @Test func unicodeComposesToNFCAndStripsControls() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- normalize: unicode\n  collection: items",
            records: #"[{"id":1,"name":"Qualita\u0308t\u0007 ok\tyes"}]"#)
        let name = try #require(result.records("items")[0]["name"]?.string)
        #expect(name == "Qualität ok yes")
        #expect(name.unicodeScalars.count == 15)
    }

    @Test func stableIDMatchesTheDocumentedAlgorithm() {
        // Computed independently with Python: sha256("montana honey bee company\x1f19 s tracy ave, bozeman, mt 59715, usa")
        let (id, _) = StableID.derive(
            [.string("Montana Honey Bee Company"), .string("19 S Tracy Ave, Bozeman, MT 59715, USA")], prefix: "shop-")
        #expect(id == "shop-6862d7ec5a78e77d")
        let (same, _) = StableID.derive(
            [.string("  montana honey  bee company "), .string("19 S Tracy Ave, Bozeman, MT 59715, USA")],
            prefix: "shop-")
        #expect(same == id)
        let (composed, _) = StableID.derive([.string("Zu\u{308}rich")], prefix: "")
        #expect(composed == StableID.derive([.string("Zürich")], prefix: "").id)
    }

    @Test func stableIDFillsOnlyMissingIDsAndReportsCollisions() throws {
        let explicit = StableID.derive([.string("B"), .null], prefix: "s-").id
        let result = try RuleHarness.run(
            fields: "id: string\nname: string\naddress: string",
            steps: "- normalize: stable-id\n  collection: items\n  field: id\n  from: [name, address]\n  prefix: s-",
            records: """
                [{"id":"keep-me","name":"A"},{"name":"A","address":"x"},{"id":"  ","name":"A","address":"x"},
                 {"id":"\(explicit)","name":"Other"},{"name":"B"}]
                """)
        let ids = result.records("items").map { $0["id"]?.string }
        #expect(ids[0] == "keep-me")
        #expect(ids[1] == StableID.derive([.string("A"), .string("x")], prefix: "s-").id)
        #expect(ids[2] == ids[1])
        #expect(ids.count == 4)
        let collision = try #require(result.rejects("items").first?.findings.first)
        #expect(collision.rule == "stable-id-collision")
        #expect(collision.message.contains("equals the id given to the record at"))
    }
}

@Suite("Normalize: convert")
struct ConvertTests {
    @Test func convertersWorkOnAnySource() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nprice: string\nlink: string\nlabel: string",
            steps: """
                - {normalize: convert, collection: items, field: price, to: price-amount, into: amount}
                - {normalize: convert, collection: items, field: price, to: price-currency, into: currency}
                - {normalize: convert, collection: items, field: link, to: url, base-url: "https://shop.example.com/c/"}
                - {normalize: convert, collection: items, field: label, to: text}
                """,
            records:
                #"[{"id": 1, "price": "1.234,56 €", "link": "p/a.html", "label": "Fish &amp; Chips &eacute;&#233;&#x41;\n  now"}, {"id": 2, "price": "free", "link": "x"}]"#
        )
        let first = try #require(result.records("items").first)
        #expect(first["amount"] == .decimal("1234.56"))
        #expect(first["currency"] == .string("EUR"))
        #expect(first["link"] == .string("https://shop.example.com/c/p/a.html"))
        #expect(first["label"] == .string("Fish & Chips ééA now"))
        #expect(result.rejects("items").map { $0.findings.map(\.rule) } == [["price"]])
        #expect(result.rejects("items").first?.findings.first?.message == "price: cannot read a price from 'free'")
    }

    @Test func entitiesThatAreNotEntitiesStay() {
        #expect(Convert.decodeEntities("AT&T & co; &nosuch; &#xZZ;") == "AT&T & co; &nosuch; &#xZZ;")
    }
}
