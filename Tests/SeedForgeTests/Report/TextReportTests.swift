import Testing

@testable import SeedForge

@Suite("Report: text format and colour")
struct TextReportTests {
    @Test func colourOnlyOnATerminalAndNeverWithNoColor() {
        #expect(ReportOptions.colorWanted(isTerminal: true, environment: [:]))
        #expect(!ReportOptions.colorWanted(isTerminal: true, environment: ["NO_COLOR": "1"]))
        #expect(ReportOptions.colorWanted(isTerminal: true, environment: ["NO_COLOR": ""]))
        #expect(!ReportOptions.colorWanted(isTerminal: false, environment: [:]))
        var report = ValidationReport()
        report.add(
            SourceError(location: Location(file: "a.json", line: 1, column: 2, pointer: ""), message: "bad"),
            pipeline: "p")
        #expect(TextReport.render(report, options: ReportOptions(color: true)).contains("\u{1B}[31merror"))
        #expect(!TextReport.render(report, options: ReportOptions(color: false)).contains("\u{1B}"))
    }
}
