import Foundation
import Testing

@testable import SeedForge

@Suite("Report: validate --format html")
struct HTMLValidationReportTests {
    @Test func everyFindingIsListedAndCounted() throws {
        let result = try CLI.run(["validate", "Fixtures/validation/validation.yml", "--format", "html"])
        #expect(result.status == 1, "\(result.stderr)")
        let dom = try ReportDOM(result.stdout)
        let json = try CLI.run(["validate", "Fixtures/validation/validation.yml", "--format", "json"])
        let summary = try #require(
            (try jsonObject(Data(json.stdout.utf8)) as? [String: Any])?["summary"] as? [String: Int])
        let header = try #require(dom.nodes("//p[@data-errors]").first)
        #expect(dom.attribute("data-errors", header).flatMap(Int.init) == summary["errors"])
        #expect(dom.attribute("data-warnings", header).flatMap(Int.init) == summary["warnings"])
        #expect(dom.nodes("//table[@class='examples']/tbody/tr").count == summary["listed"])
        #expect(dom.texts("//tr[@class='error']/td[1]").contains("Fixtures/validation/shops-2.json:1:197"))
        #expect(dom.plotProblems() == [])
        #expect(!result.stdout.contains("<script"))
    }
}
