import Testing

@testable import SeedForge

/// `validate: unique`: later records with a value seen before.
@Suite("Validate: unique")
struct UniqueRuleTests {
    @Test func uniqueFlagsLaterRecordsAndNamesTheFirst() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string",
            steps: "- validate: unique\n  collection: items\n  field: id",
            records: "[{\"id\":1,\"name\":\"a\"},\n{\"id\":2},\n{\"id\":1,\"name\":\"b\"}]")
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(2)])
        let finding = try #require(result.rejects("items").first?.findings.first)
        #expect(finding.message.contains("is already used by the record at"))
        #expect(finding.message.contains(":1:2"))
        #expect(finding.location?.line == 3)
    }
}

/// Keys are hashed (in a shard or in the run itself) and compared only where hashes meet:
/// the findings are those of comparing every key by `Value` equality.
@Suite("Validate: unique key hashes")
struct UniqueKeyHashTests {
    /// `é` precomposed and decomposed are one text, `4` and `4.0` one number: a record
    /// repeating either is flagged, naming the first.
    @Test func canonicallyEquivalentTextsAndEqualNumbersAreOneKey() throws {
        let result = try RuleHarness.run(
            fields: "id: integer\nname: string\nrank: number",
            steps:
                "- validate: unique\n  collection: items\n  field: name\n- validate: unique\n  collection: items\n  field: rank",
            records: """
                [{"id":1,"name":"caf\\u00e9","rank":4},
                {"id":2,"name":"cafe\\u0301","rank":5},
                {"id":3,"name":"cafe","rank":4.0},
                {"id":4,"name":"other","rank":-0.0},
                {"id":5,"name":"more","rank":0},
                {"id":6,"name":"\\ud804\\udfc5","rank":6},
                {"id":7,"name":"\\ud804\\udfc2\\ud804\\udfc2","rank":7}]
                """)
        // Ids 6 and 7: U+113C5 and U+113C2 U+113C2 (Tulu-Tigalari, Unicode 16), one text
        // for `String` equality, which Foundation's NFC on Linux leaves apart.
        #expect(RuleHarness.keptIDs(result) == [.int(1), .int(4), .int(6)])
        let messages = result.rejects("items").flatMap { $0.findings.map(\.message) }
        #expect(
            messages.contains { $0.hasPrefix("name \"cafe\u{301}\"") && $0.hasSuffix("data.json:1:2") }, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("rank 4 ") && $0.hasSuffix("data.json:1:2") }, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("rank 0 ") && $0.hasSuffix("data.json:4:1") }, "\(messages)")
    }

    /// With every record given the same hash, keys are compared record by record: the same
    /// findings as with the keys' own hashes (records without a key never meet one).
    @Test func findingsDoNotDependOnWhereHashesMeet() throws {
        let unique = """
            steps:
              - validate: unique
                collection: items
                field: [code, size]
            """
        func yaml(_ steps: String) -> String {
            """
            name: rules
            sources:
              items:
                kind: json
                path: data.json
                id: id
                fields: {id: integer, code: string, size: number}
            \(steps)
            outputs:
              - {file: items.json, collection: items}
            """
        }
        let lines = (0..<300).map { index -> String in
            let code = index % 7 == 0 ? "null" : "\"c\(index % 40)\""
            return #"{"id": \#(index), "code": \#(code), "size": \#(index % 3 == 0 ? "1.0" : "\(index % 5)")}"#
        }
        let files = ["data.json": "[" + lines.joined(separator: ",\n") + "]"]
        let pipeline = try Harness.load(yaml(unique), files: files)
        guard case .validate(let step) = pipeline.steps[0], let rule = step.rule as? UniqueRule else {
            Issue.record("not a unique rule")
            return
        }
        // The records as the rule sees them: the same pipeline without the step.
        let plain = try Harness.run(yaml(""), files: files)
        let records = plain.state.records("items")
        #expect(records.count == 300)
        let schema = plain.state.schemas[loaded: "items"]
        let own = rule.checkAll(records, schema: schema, code: step.code, severity: step.severity, threads: 3)
        let (_, present) = rule.keyHashes(of: records, threads: 1)
        let colliding = rule.checkAll(
            records, hashes: [UInt64](repeating: 42, count: records.count), present: present, schema: schema,
            code: step.code, severity: step.severity)
        let messages = { (results: [[Finding]]) in results.map { $0.map(\.message) } }
        #expect(messages(own) == messages(colliding))
        #expect(own.filter { !$0.isEmpty }.count > 100, "\(own.filter { !$0.isEmpty }.count) repeated keys")
        #expect(present.filter { !$0 }.count == 43)
    }

    /// Arrays and objects hash by their contents (in order, as `Value` equality compares
    /// them): distinct lists get distinct hashes, so a field of lists is not compared key by
    /// key with every earlier one (20,000 records took 31 s when a list hashed by its kind).
    @Test func listsAndObjectsHashByTheirContents() throws {
        let lines = (0..<2_000).map { index in
            #"{"id": \#(index), "tags": [\#(index % 1_000), "t"], "place": {"x": \#(index / 1_000), "y": "é"}}"#
        }
        let yaml = """
            name: rules
            sources:
              items:
                kind: ndjson
                path: data.ndjson
                id: id
                fields: {id: integer, tags: array, place: object}
            outputs:
              - {file: items.json, collection: items}
            """
        let result = try Harness.run(yaml, files: ["data.ndjson": lines.joined(separator: "\n") + "\n"])
        let records = result.state.records("items")
        let pipeline = try Harness.load(
            yaml.replacingOccurrences(
                of: "outputs:",
                with: "steps:\n  - {validate: unique, collection: items, field: [tags, place]}\noutputs:"),
            files: ["data.ndjson": lines.joined(separator: "\n") + "\n"])
        guard case .validate(let step) = pipeline.steps[0], let rule = step.rule as? UniqueRule else {
            Issue.record("not a unique rule")
            return
        }
        let (hashes, present) = rule.keyHashes(of: records, threads: 1)
        #expect(present.allSatisfy { $0 })
        #expect(Set(hashes).count == 2_000, "\(Set(hashes).count) distinct hashes")
        // Equal lists and objects in other records hash alike (the same key twice).
        let tagsOnly = try Harness.load(
            yaml.replacingOccurrences(
                of: "outputs:", with: "steps:\n  - {validate: unique, collection: items, field: tags}\noutputs:"),
            files: ["data.ndjson": lines.joined(separator: "\n") + "\n"])
        guard case .validate(let tagsStep) = tagsOnly.steps[0], let tagsRule = tagsStep.rule as? UniqueRule else {
            Issue.record("not a unique rule")
            return
        }
        let byTags = tagsRule.keyHashes(of: records, threads: 1).hashes
        #expect(Set(byTags).count == 1_000)
        #expect(byTags[5] == byTags[1_005])
    }
}
