/// `--format html`: the validation findings as one self-contained HTML page (the same page
/// frame, colours and plots as `seedforge report`): totals, exceeded thresholds, and per
/// pipeline the findings by rule and by file, then every listed finding with its file,
/// line, column, JSON Pointer, field, value and id.
public enum HTMLValidationReport {
    public static func render(_ report: ValidationReport, options: ReportOptions) -> String {
        var page = PageWriter()
        page.add("<header><h1>seedforge validate</h1>")
        page.add(
            "<p class=\"run\" data-errors=\"\(report.errorCount)\" data-warnings=\"\(report.warningCount)\">"
                + "\(HTMLText.escape(report.summary))</p></header>")
        if !report.thresholdFailures.isEmpty {
            page.add("<section id=\"thresholds\"><h2>Thresholds exceeded</h2><ul>")
            for failure in report.thresholdFailures {
                page.add("<li>\(HTMLText.escape(failure.pipeline)): \(HTMLText.escape(failure.message))</li>")
            }
            page.add("</ul></section>")
        }
        let listed = options.listed(report)
        for pipeline in report.pipelines {
            let entries = report.entries.filter { $0.pipeline == pipeline.name }
            page.add("<section class=\"pipeline\" data-pipeline=\"\(HTMLText.escape(pipeline.name))\">")
            page.add("<h2>\(HTMLText.escape(pipeline.name))</h2><p><code>\(HTMLText.escape(pipeline.file))</code></p>")
            guard !entries.isEmpty else {
                page.add("<p class=\"none\">No findings.</p></section>")
                continue
            }
            page.add("<div class=\"grid\">")
            let byRule = HTMLReport.countsByKey(entries.map(\.finding.rule.rawValue))
            page.add(
                ReportPlots.bars(
                    byRule.map {
                        .init(
                            label: $0.key, value: Double($0.count), display: HTMLText.count($0.count), tone: .rejected)
                    }, kind: "by-rule", caption: "findings by rule"))
            let byFile = HTMLReport.countsByKey(entries.map { $0.finding.location?.file ?? "(no file)" })
            page.add(
                ReportPlots.bars(
                    byFile.map {
                        .init(
                            label: $0.key, value: Double($0.count), display: HTMLText.count($0.count), tone: .rejected)
                    }, kind: "by-file", caption: "findings by file"))
            page.add("</div>")
            let shown = listed.filter { $0.pipeline == pipeline.name }
            page.add("<div class=\"scroll\"><table class=\"examples\"><caption>Findings</caption><thead><tr>")
            page.add("<th>file:line:column</th><th>severity</th><th>rule</th><th>message</th><th>where</th>")
            page.add("<th>field</th><th>value</th><th>id</th></tr></thead><tbody>")
            for entry in shown {
                let finding = entry.finding
                let place = finding.location.map { "\($0.file):\($0.line):\($0.column)" } ?? ""
                page.add(
                    "<tr class=\"\(finding.severity.rawValue)\"><td class=\"place\">\(HTMLText.escape(place))</td>")
                page.add("<td>\(finding.severity.rawValue)</td><td>\(HTMLText.escape(finding.rule.rawValue))</td>")
                page.add("<td>\(HTMLText.escape(finding.message))</td>")
                page.add("<td class=\"place\">\(HTMLText.escape(finding.location?.pointer ?? ""))</td>")
                page.add("<td>\(HTMLText.escape(finding.field ?? ""))</td>")
                page.add("<td class=\"value\">\(HTMLText.escape(HTMLText.value(finding.value)))</td>")
                let id = entry.id.map { $0.isNull ? "" : HTMLText.value($0, limit: 40) } ?? ""
                page.add("<td>\(HTMLText.escape(id))</td></tr>")
            }
            page.add("</tbody></table></div>")
            if shown.count < entries.count {
                page.add(
                    "<p class=\"note\">\(HTMLText.count(entries.count - shown.count)) more not listed (--max-findings).</p>"
                )
            }
            page.add("</section>")
        }
        return page.finish(title: "seedforge validate: \(report.summary)")
    }
}
