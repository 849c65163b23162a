/// Which rules rejected how many records, for a threshold message: a run that fails with
/// `209579 of 209579 cities records rejected` should also say that `type` on `spend`
/// rejected them all. Each rejected record counts once, under the rule and field of its
/// first finding (the one that rejected it).
struct RejectBreakdown {
    /// Rules shown before the rest are summed up as "N more".
    static let shown = 5

    /// `type (field spend) 34, range (field rating) 2`, most first, then by rule and field;
    /// nil without rejects.
    static func describe(_ rejects: some Sequence<Rejection>) -> String? {
        var counts: [String: Int] = [:]
        for rejection in rejects {
            guard let finding = rejection.findings.first else { continue }
            counts["\(finding.rule)\(finding.field.map { " (field \($0))" } ?? "")", default: 0] += 1
        }
        guard !counts.isEmpty else { return nil }
        let ordered = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        var parts = ordered.prefix(shown).map { "\($0.key) \($0.value)" }
        if ordered.count > shown {
            let rest = ordered.dropFirst(shown)
            parts.append("\(rest.count) more rules \(rest.reduce(0) { $0 + $1.value })")
        }
        return "rejected by " + parts.joined(separator: ", ")
    }
}
