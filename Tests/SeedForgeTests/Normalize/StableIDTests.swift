import Testing

@testable import SeedForge

/// `normalize: stable-id`: ids derived from content, collisions reported.
@Suite("Normalize: stable-id")
struct StableIDTests {
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
