import CLibXML2
import Foundation
import Testing

@testable import SeedForge

/// Issue 18: on a minified one-line file `line=1,col=197` alone does not find the record;
/// every format names the record's id and the value's JSON Pointer.
@Suite("Report: findings on one-line files")
struct OneLineFindingsTests {
    @Test func everyFormatNamesTheRecordAndThePointer() throws {
        for format in ["text", "github", "junit"] {
            let result = try CLI.run(["validate", ValidateCommandTests.pipeline, "--format", format])
            #expect(result.status == 1, "\(result.stderr)")
            let line = try #require(
                result.stdout.split(separator: "\n").first { $0.contains("rating 9.6 is above the maximum 5") },
                "\(format)")
            #expect(line.contains("1:197") || line.contains("line=1,col=197"), "\(format): \(line)")
            #expect(line.contains(#"id "#) && line.contains("at /"), "\(format): \(line)")
        }
        let json = try #require(
            jsonObject(Data(CLI.run(["validate", ValidateCommandTests.pipeline, "--format", "json"]).stdout.utf8))
                as? [String: Any])
        let finding = try #require(
            (json["findings"] as? [[String: Any]])?.first { ($0["message"] as? String)?.contains("9.6") == true })
        let (id, pointer) = (try #require(finding["id"] as? String), try #require(finding["pointer"] as? String))
        let github = try CLI.run(["validate", ValidateCommandTests.pipeline, "--format", "github"]).stdout
        #expect(
            github.contains("(id \"\(id)\", at \(pointer), field rating)"), "the same id and pointer as the JSON format"
        )
    }

    @Test func aThresholdFailureSaysWhichRulesRejected() throws {
        let dir = try TempDir()
        try dir.write(
            "cities.json",
            #"[{"id":1,"name":"Hurzuf","lat":"44.55"},{"id":2,"name":"Novyi Svit","lat":"44.83"},{"id":3,"name":"","lat":44.6}]"#
        )
        try dir.write(
            "cities.yml",
            """
            name: cities
            sources:
              cities: {kind: json, path: cities.json, id: id, fields: {id: integer, name: string, lat: number}}
            steps:
              - validate: required
                collection: cities
                field: name
            outputs:
              - {file: cities.json, collection: cities}
            """)
        let result = try CLI.run(["run", "cities.yml", "--out", "out"], cwd: dir.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "3 of 3 cities records rejected (100%), more than thresholds.max-reject-fraction 0.5: rejected by type (field lat) 2, required (field name) 1"
            ), "\(result.stderr)")
    }
}
