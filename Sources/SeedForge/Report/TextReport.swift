/// The plain-text validation report: one line per finding, in the `file:line:column:`
/// form editors and CI logs link to, then a summary line.
public enum TextReport {
    public static func render(_ report: ValidationReport) -> String {
        var out = ""
        for entry in report.sorted {
            let finding = entry.finding
            let place = finding.location.map { "\($0.file):\($0.line):\($0.column): " } ?? "\(entry.dataset): "
            let field = finding.field.map { " (field \($0))" } ?? ""
            out += "\(place)\(finding.severity.rawValue): \(finding.message) [\(finding.rule)]\(field)\n"
        }
        for failure in report.failures { out += "error: \(failure)\n" }
        let errors = report.errorCount
        let warnings = report.warningCount
        out += "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s") in \(report.fileCount) file\(report.fileCount == 1 ? "" : "s")\n"
        return out
    }
}
