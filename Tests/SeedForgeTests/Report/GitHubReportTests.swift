import Testing

@testable import SeedForge

@Suite("Report: GitHub workflow commands")
struct GitHubReportTests {
    @Test func githubEscapesWhatWorkflowCommandsRequire() {
        #expect(GitHubReport.property("a,b:c%\n") == "a%2Cb%3Ac%25%0A")
        #expect(GitHubReport.data("50% off\r\nnow") == "50%25 off%0D%0Anow")
    }
}
