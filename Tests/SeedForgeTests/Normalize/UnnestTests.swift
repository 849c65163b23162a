import Foundation
import Testing

@testable import SeedForge

/// `normalize: unnest`: an array field becomes a collection, each element a record with its
/// parent's key and position, and findings pointing at the element in its file.
@Suite("Normalize: unnest")
struct UnnestTests {
    static func pipeline(
        kind: String = "json", path: String = "data.json", source: String = "", step: String = ""
    )
        -> String
    {
        """
        name: unnest
        sources:
          shops:
            kind: \(kind)
            path: \(path)
            id: id
        \(source)
            fields:
              id: integer
              reviews: array
        steps:
          - normalize: unnest
            collection: shops
            field: reviews
            into: reviews
            parent-fields: [id]
            position-field: position
        \(step)
            fields:
              stars: number
              title: {type: string, from: /text/title}
        outputs:
          - file: shops.json
            collection: shops
          - file: reviews.json
            collection: reviews
        thresholds:
          max-reject-fraction: 1
        """
    }

    @Test func eachElementBecomesARecordWithItsParentsKeyAndPosition() throws {
        let data = #"""
            [
              {"id": 1, "reviews": [{"stars": 4, "text": {"title": "good"}}, {"stars": 5}]},
              {"id": 2, "reviews": []},
              {"id": 3},
              {"id": 4, "reviews": [{"stars": "many"}, {"stars": 2}]}
            ]
            """#
        let result = try Harness.run(Self.pipeline(), files: ["data.json": data])
        let reviews = result.records("reviews")
        #expect(reviews.map { $0["id"] } == [.int(1), .int(1), .int(4)])
        #expect(reviews.map { $0["position"] } == [.int(0), .int(1), .int(1)])
        #expect(reviews.map { $0["title"] } == [.string("good"), .null, .null])
        #expect(result.records("shops").count == 4)
        let finding = try #require(result.rejects("reviews").first?.findings.first)
        #expect(finding.rule == "type")
        #expect(finding.location?.pointer == "/3/reviews/0/stars")
        #expect(finding.location?.line == 5 && finding.location?.column == 35)
        let account = try #require(result.counts.first { $0.collection == "reviews" })
        #expect(account.received == 4 && account.emitted == 3 && account.rejected == 1 && account.balanced)
    }

    @Test func laterStepsPointAtTheElementInNDJSONAndKeyedFiles() throws {
        let range = "  - validate: range\n    collection: reviews\n    field: stars\n    min: 1\n    max: 5"
        let ndjson = Self.pipeline(kind: "ndjson", path: "data.ndjson") + "\n"
        let yaml = ndjson.replacingOccurrences(of: "outputs:", with: range + "\noutputs:")
        let lines =
            #"{"id": 1, "reviews": [{"stars": 4}]}"# + "\n" + #"{"id": 2, "reviews": [{"stars": 1}, {"stars": 9}]}"#
        let result = try Harness.run(yaml, files: ["data.ndjson": lines])
        let finding = try #require(result.rejects("reviews").first?.findings.first)
        #expect(finding.rule == "range")
        #expect(finding.location?.pointer == "/reviews/1/stars")
        #expect(finding.location?.line == 2 && finding.location?.column == 47)

        let keyed = Self.pipeline(source: "    key-field: id").replacingOccurrences(
            of: "outputs:", with: range + "\noutputs:")
        let object = #"{"17": {"reviews": [{"stars": 0}]}}"#
        let keyedResult = try Harness.run(keyed, files: ["data.json": object])
        #expect(keyedResult.rejects("reviews").first?.findings.first?.location?.pointer == "/17/reviews/0/stars")
        #expect(keyedResult.rejects("reviews").first?.record?[FieldID(index: 2)] == .int(17))
    }

    @Test func definitionErrorsNameTheMistake() throws {
        let notArray = Harness.definitionErrors(
            Self.pipeline().replacingOccurrences(of: "field: reviews", with: "field: id"))
        #expect(notArray.map(\.message).contains { $0.contains("unnest takes an array field") })
        let existing = Harness.definitionErrors(
            Self.pipeline().replacingOccurrences(of: "into: reviews", with: "into: shops"))
        #expect(existing.map(\.message).contains { $0.contains("exists already") })
        let clash = Harness.definitionErrors(
            Self.pipeline().replacingOccurrences(of: "stars: number", with: "id: number"))
        #expect(clash.map(\.message).contains { $0.contains("is a field of each element too") })
        let unwritten = Harness.definitionErrors(
            Self.pipeline().replacingOccurrences(of: "  - file: reviews.json\n    collection: reviews\n", with: ""))
        #expect(unwritten.map(\.message).contains { $0.contains("'reviews' is never written") })
        // With reference: true the element collection needs no output.
        let reference = Harness.definitionErrors(
            Self.pipeline(step: "    reference: true").replacingOccurrences(
                of: "  - file: reviews.json\n    collection: reviews\n", with: ""))
        #expect(reference.isEmpty, "\(reference.map(\.message))")
    }
    /// A list of plain values (a quote's tags, bare ratings): each element whole in one field.
    @Test func valueFieldTakesEachPlainElementWhole() throws {
        let yaml = """
            name: t
            sources:
              quotes: {kind: json, path: data.json, id: id, fields: {id: integer, tags: array, ratings: array}}
            steps:
              - normalize: unnest
                collection: quotes
                field: tags
                into: tags
                parent-fields: [id]
                value-field: tag
              - normalize: unnest
                collection: quotes
                field: ratings
                into: ratings
                parent-fields: [id]
                value-field: {stars: number}
                reference: true
            outputs:
              - {file: quotes.json, collection: quotes}
              - {file: tags.json, collection: tags}
            thresholds: {max-reject-fraction: 1}
            """
        let data = #"[{"id": 1, "tags": ["change", "life"], "ratings": [4, "five", 3.5]}]"#
        let result = try Harness.run(yaml, files: ["data.json": data])
        #expect(result.records("tags").map { $0["tag"] } == [.string("change"), .string("life")])
        #expect(result.records("ratings").map { $0["stars"] } == [.int(4), .double(3.5)])
        let finding = try #require(result.rejects("ratings").first?.findings.first)
        #expect(finding.rule == "type" && finding.location?.pointer == "/0/ratings/1")
        #expect(finding.location?.column == 55)
        let both = Harness.definitionErrors(
            yaml.replacingOccurrences(of: "value-field: tag", with: "value-field: tag\n    fields: {x: string}"))
        #expect(both.map(\.message).contains { $0.contains("leave out 'fields'") })
        let neither = Harness.definitionErrors(yaml.replacingOccurrences(of: "    value-field: tag\n", with: ""))
        #expect(neither.map(\.message).contains { $0.contains("needs 'fields'") })
    }
}
