/// `--format json`: one JSON document (schema version 1):
///
/// ```
/// {"version": 1,
///  "summary": {"errors": N, "warnings": M, "files": K, "listed": L, "thresholdFailures": T},
///  "findings": [{"pipeline", "collection", "id", "rule", "severity", "message",
///                "file", "line", "column", "pointer", "field", "value"}, ...],
///  "thresholds": [{"pipeline", "message"}, ...]}
/// ```
///
/// Findings are sorted by file, line and column; `value` is the offending value as JSON
/// (long text cut to 100 characters); absent facts are null.
public enum JSONReport {
    public static func render(_ report: ValidationReport, options: ReportOptions) -> String {
        let listed = options.listed(report)
        let findings: [Value] = listed.map { entry in
            let finding = entry.finding
            return .object(
                JSONObject([
                    ("pipeline", .string(entry.pipeline)),
                    ("collection", entry.collection.map { .string($0.name) } ?? .null),
                    ("id", entry.id ?? .null), ("rule", .string(finding.rule.rawValue)),
                    ("severity", .string(finding.severity.rawValue)),
                    ("message", .string(finding.message)), ("file", finding.location.map { .string($0.file) } ?? .null),
                    ("line", finding.location.map { .int(Int64($0.line)) } ?? .null),
                    ("column", finding.location.map { .int(Int64($0.column)) } ?? .null),
                    ("pointer", finding.location.map { .string($0.pointer) } ?? .null),
                    ("field", finding.field.map(Value.string) ?? .null), ("value", truncated(finding.value)),
                ]))
        }
        let root = Value.object(
            JSONObject([
                ("version", .int(1)),
                (
                    "summary",
                    .object(
                        JSONObject([
                            ("errors", .int(Int64(report.errorCount))), ("warnings", .int(Int64(report.warningCount))),
                            ("files", .int(Int64(report.fileCount))), ("listed", .int(Int64(listed.count))),
                            ("thresholdFailures", .int(Int64(report.thresholdFailures.count))),
                        ]))
                ),
                ("findings", .array(findings)),
                (
                    "thresholds",
                    .array(
                        report.thresholdFailures.map {
                            .object(JSONObject([("pipeline", .string($0.pipeline)), ("message", .string($0.message))]))
                        })
                ),
            ]))
        var writer = JSONWriter()
        writer.writePretty(root)
        return String(decoding: writer.bytes, as: UTF8.self) + "\n"
    }

    static func truncated(_ value: Value?) -> Value {
        guard let value else { return .null }
        if case .string(let text) = value, text.count > 100 { return .string(String(text.prefix(99)) + "…") }
        if case .array = value, let shown = ValidationReport.shown(value), shown.hasSuffix("…") {
            return .string(shown)
        }
        if case .object = value, let shown = ValidationReport.shown(value), shown.hasSuffix("…") {
            return .string(shown)
        }
        return value
    }
}
