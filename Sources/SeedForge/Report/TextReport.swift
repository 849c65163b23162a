/// `--format text`: findings grouped by file, one line each (`line:column  severity
/// message [rule] (id, at pointer, field, value)`), then `N errors, M warnings in K files`. Colour (bold
/// files, red errors, yellow warnings) only when asked for: the command does so on a
/// terminal and never when NO_COLOR is set.
public enum TextReport {
    public static func render(_ report: ValidationReport, options: ReportOptions) -> String {
        func paint(_ text: String, _ code: String) -> String {
            options.color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
        }
        var out = ""
        var currentFile: String?
        let listed = options.listed(report)
        for entry in listed {
            let finding = entry.finding
            let file = finding.location?.file ?? "(\(entry.pipeline))"
            if file != currentFile {
                out += (currentFile == nil ? "" : "\n") + paint(file, "1") + "\n"
                currentFile = file
            }
            let place = finding.location.map { "\($0.line):\($0.column)" } ?? "-"
            let severity = finding.severity == .error ? paint("error  ", "31") : paint("warning", "33")
            var detail = entry.whereabouts
            if let value = ValidationReport.shown(finding.value), finding.value != nil, finding.rule != .jsonSyntax {
                detail.append("value \(value)")
            }
            out +=
                "  \(place.padding(toLength: max(place.count, 8), withPad: " ", startingAt: 0)) \(severity)  \(finding.message) [\(finding.rule)]"
            out += detail.isEmpty ? "\n" : " (\(detail.joined(separator: ", ")))\n"
        }
        if listed.count < report.entries.count {
            out +=
                "\n... \(report.entries.count - listed.count) more findings not listed (--max-findings \(options.maxFindings ?? 0))\n"
        }
        for failure in report.thresholdFailures {
            out += "\n" + paint("error", "31") + ": \(failure.pipeline): \(failure.message)"
        }
        if !report.thresholdFailures.isEmpty { out += "\n" }
        if !out.isEmpty { out += "\n" }
        return out + report.summary + "\n"
    }
}
