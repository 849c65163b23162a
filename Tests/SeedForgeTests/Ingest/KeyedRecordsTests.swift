import Foundation
import Testing

@testable import SeedForge

/// `key-field`: records that are the values of an object keyed by id (GeoNames' city
/// lists), each holding its key as a field, with findings pointing at `/KEY/field`.
@Suite("Sources: records keyed by id")
struct KeyedRecordsTests {
    static func pipeline(extra: String = "    key-field: geonameid") -> String {
        """
        name: keyed
        sources:
          cities:
            kind: json
            path: data.json
        \(extra)
            id: id
            fields:
              id: {type: integer, from: /geonameid}
              name: string
        outputs:
          - file: cities.json
            collection: cities
        thresholds:
          max-reject-fraction: 1
        """
    }

    @Test func theValuesOfAnObjectAreTheRecordsWithTheirKeyAsAField() throws {
        let data = """
            {
              "3040051": {"name": "les Escaldes"},
              "3041563": {"geonameid": 3041563, "name": "Andorra la Vella"},
              "290594": {"name": 290594}
            }
            """
        let result = try Harness.run(Self.pipeline(), files: ["data.json": data])
        #expect(result.records("cities").map { $0["id"] } == [.int(3_040_051), .int(3_041_563)])
        let reject = try #require(result.rejects("cities").first)
        #expect(reject.findings[0].rule == "type")
        #expect(reject.findings[0].location?.pointer == "/290594/name")
        #expect(reject.findings[0].location?.line == 4)
        #expect(reject.findings[0].location?.column == 22)
        #expect(reject.id == .int(290_594))
    }

    @Test func keyedRecordsInsideADocumentAndAKeyThatIsNotANumber() throws {
        let yaml = Self.pipeline(extra: "    key-field: geonameid\n    records: /cities")
        let data = #"{"count": 2, "cities": {"3040051": {"name": "a"}, "x1": {"name": "b"}}}"#
        let result = try Harness.run(yaml, files: ["data.json": data])
        #expect(result.records("cities").map { $0["id"] } == [.int(3_040_051)])
        let finding = try #require(result.rejects("cities").first?.findings.first)
        #expect(finding.rule == "type" && finding.message.contains("\"x1\""))
        #expect(finding.location?.pointer == "/cities/x1/geonameid")
    }

    @Test func aRecordWhoseIdIsNotItsKeyAndAKeyWrittenTwiceAreRejected() throws {
        let data = #"{"1": {"geonameid": 2, "name": "a"}, "3": {"name": "b"}, "3": {"name": "c"}}"#
        let result = try Harness.run(Self.pipeline(), files: ["data.json": data])
        #expect(result.records("cities").map { $0["name"] } == [.string("b")])
        let findings = result.rejects("cities").map { $0.findings[0] }
        #expect(findings.map(\.rule) == ["key-field", "duplicate-key"])
        #expect(findings[0].message == "the record holds geonameid 2, but its key is '1'")
        #expect(findings[0].location?.pointer == "/1/geonameid")
        #expect(findings[1].location?.column == 58)
    }

    /// A keyed document cut short where a key should come is a syntax error naming the end
    /// of the input, not a crash: through a run, whose syntax check finds it first, and
    /// through the source's reader alone, which the JSON fuzzer drives (its input: `{` and
    /// two line breaks, which had the reader name the byte past the end).
    @Test(arguments: ["{\n\n", #"{"1": {"name": "a"}, "#, #"{"1": {"name": "a"},"#])
    func aDocumentCutShortBeforeAKeySaysSo(_ text: String) throws {
        let error = try #require(Harness.sourceError(Self.pipeline(), files: ["data.json": Array(text.utf8)]))
        #expect(error.message.contains("unexpected end of input"), "\(error.message)")

        let pipeline = try Harness.load(Self.pipeline(), files: ["data.json": text])
        let source = try #require(pipeline.sources.first)
        let state = RunState(schemas: pipeline.schemas, threads: 1)
        var sink = IngestSink(
            collection: source.collection, mapping: source.mapping, state: state, threads: state.threads,
            limits: pipeline.limits)
        let input = SourceText(displayPath: "data.json", bytes: Array(text.utf8))
        #expect {
            _ = try source.kind.read(input, into: &sink)
        } throws: { error in
            "\(error)".contains("unexpected end of input")
        }
    }

    @Test func anObjectWithoutKeyFieldSaysWhatToSet() throws {
        let error = try #require(
            Harness.sourceError(Self.pipeline(extra: ""), files: ["data.json": Array(#"{"1": {"name": "a"}}"#.utf8)]))
        #expect(error.message.contains("set 'key-field'"))
    }

    @Test func keyFieldMustBeTakenByAField() throws {
        let errors = Harness.definitionErrors(Self.pipeline(extra: "    key-field: id"))
        #expect(errors.map(\.message).contains { $0.contains("no field takes it") })
    }
}
