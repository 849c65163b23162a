/// `--format junit`: JUnit XML as CI systems read it: `<testsuites>` with one
/// `<testsuite>` per pipeline and one `<testcase>` per rule (every rule the pipeline runs,
/// plus any other rule code with findings, such as `type` or `json-syntax`). A rule with
/// error findings has a `<failure>` listing them, one `file:line:column: message` line each;
/// warnings are listed in `<system-out>`. Exceeded thresholds are `<error>`s of a
/// `thresholds` test case. Counts: `tests`, `failures`, `errors` on suites and the root.
public enum JUnitReport {
    public static func render(_ report: ValidationReport, options: ReportOptions) -> String {
        // Which findings are listed: the first --max-findings in report order.
        let order = report.sorted
        let limit = options.maxFindings ?? order.count
        var byRule: [String: [(entry: ValidationReport.Entry, listed: Bool)]] = [:]
        for (index, entry) in order.enumerated() {
            byRule["\(entry.pipeline)\u{1F}\(entry.finding.rule)", default: []].append((entry, index < limit))
        }
        var suites: [String] = []
        var totals = (tests: 0, failures: 0, errors: 0)
        var names = report.pipelines.map(\.name)
        for entry in report.entries where !names.contains(entry.pipeline) { names.append(entry.pipeline) }
        for name in names {
            let info = report.pipelines.first { $0.name == name }
            var rules = info?.rules ?? []
            for entry in report.entries where entry.pipeline == name && !rules.contains(entry.finding.rule) {
                rules.append(entry.finding.rule)
            }
            var cases: [String] = []
            var counts = (tests: 0, failures: 0, errors: 0)
            for rule in rules {
                let all = byRule["\(name)\u{1F}\(rule)"] ?? []
                let errors = all.filter { $0.entry.finding.severity == .error }
                let warnings = all.filter { $0.entry.finding.severity == .warning && $0.listed }.map(\.entry)
                let shownErrors = errors.filter(\.listed).map(\.entry)
                counts.tests += 1
                var body = ""
                if !errors.isEmpty {
                    counts.failures += 1
                    var lines = shownErrors.map(line)
                    if shownErrors.count < errors.count {
                        lines.append("... \(errors.count - shownErrors.count) more not listed")
                    }
                    body +=
                        "\n      <failure type=\"\(escape(rule.rawValue))\" message=\"\(errors.count) finding\(errors.count == 1 ? "" : "s")\">\(escape(lines.joined(separator: "\n")))</failure>"
                }
                if !warnings.isEmpty {
                    body += "\n      <system-out>\(escape(warnings.map(line).joined(separator: "\n")))</system-out>"
                }
                cases.append(
                    "    <testcase name=\"\(escape(rule.rawValue))\" classname=\"\(escape(name))\"\(body.isEmpty ? "/>" : ">\(body)\n    </testcase>")"
                )
            }
            let thresholds = report.thresholdFailures.filter { $0.pipeline == name }
            if !thresholds.isEmpty {
                counts.tests += 1
                counts.errors += 1
                let text = thresholds.map(\.message).joined(separator: "\n")
                cases.append(
                    "    <testcase name=\"thresholds\" classname=\"\(escape(name))\">\n      <error type=\"threshold\" message=\"reject threshold exceeded\">\(escape(text))</error>\n    </testcase>"
                )
            }
            totals.tests += counts.tests
            totals.failures += counts.failures
            totals.errors += counts.errors
            let file = info.map { " file=\"\(escape($0.file))\"" } ?? ""
            suites.append(
                "  <testsuite name=\"\(escape(name))\" tests=\"\(counts.tests)\" failures=\"\(counts.failures)\" errors=\"\(counts.errors)\"\(file)>\n"
                    + cases.joined(separator: "\n") + "\n  </testsuite>")
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="seedforge validate" tests="\(totals.tests)" failures="\(totals.failures)" errors="\(totals.errors)">
            \(suites.joined(separator: "\n"))
            </testsuites>

            """
    }

    static func line(_ entry: ValidationReport.Entry) -> String {
        let finding = entry.finding
        let place = finding.location.map { "\($0.file):\($0.line):\($0.column): " } ?? ""
        return "\(place)\(finding.severity.rawValue): \(finding.message)" + entry.whereaboutsSuffix
    }

    /// XML text: markup characters escaped, characters XML 1.0 forbids replaced.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let value = scalar.value
                if value < 0x20 || (0xFFFE...0xFFFF).contains(value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
