/// `--format github`: one workflow command per finding, which GitHub Actions shows on
/// the pull request's lines:
/// `::error file=F,line=L,col=C,title=RULE::message` (`::warning` for warnings), then the
/// summary as a plain line. Property values and messages are escaped as GitHub requires
/// (`%`, CR, LF; and `:` and `,` in properties).
public enum GitHubReport {
    public static func render(_ report: ValidationReport, options: ReportOptions) -> String {
        var out = ""
        let listed = options.listed(report)
        for entry in listed {
            let finding = entry.finding
            var properties: [String] = []
            if let location = finding.location {
                properties += ["file=\(property(location.file))", "line=\(location.line)", "col=\(location.column)"]
            }
            properties.append("title=\(property(finding.rule.rawValue))")
            let message = finding.message + entry.whereaboutsSuffix
            out += "::\(finding.severity.rawValue) \(properties.joined(separator: ","))::\(data(message))\n"
        }
        if listed.count < report.entries.count {
            out +=
                "::notice title=seedforge::\(report.entries.count - listed.count) more findings not listed (--max-findings)\n"
        }
        for failure in report.thresholdFailures {
            out += "::error title=threshold::\(data("\(failure.pipeline): \(failure.message)"))\n"
        }
        return out + report.summary + "\n"
    }

    static func data(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    static func property(_ text: String) -> String {
        data(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
