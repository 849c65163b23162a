import Foundation

/// `seedforge report`: one self-contained HTML page about an emitted dataset folder,
/// with inline CSS and SVG only (no script, no font, no image file, no network; a
/// Content-Security-Policy forbids anything else), so it opens from a CI artefact or an
/// e-mail attachment. For each collection: the accounting as a waterfall, rejects and
/// warnings by rule and by file with their first examples, duplicates, a profile of every
/// field of the emitted records, and a world map of their positions; then the changes
/// since the last release (`changes.ndjson`, when present) and the per-step and per-output
/// timings. The page is the same bytes for the same folder.
public enum HTMLReport {
    /// First examples listed per rule (rejects, warnings) and for duplicates.
    static let examplesPerRule = 3
    /// Files listed by name in "by file" (the rest are summed in one line).
    static let filesListed = 12
    /// Most common values shown for a field.
    static let topValues = 8

    public static func render(_ folder: DatasetFolder) throws -> String {
        var page = PageWriter()
        page.add(header(folder))
        var sections = ""
        for account in folder.accounts {
            sections += try collection(account, folder: folder)
        }
        // The land outline once, for every map on the page.
        if sections.contains("data-plot=\"map\"") { page.add(ReportPlots.landDefinition) }
        page.add(summary(folder))
        page.add(sections)
        page.add(changes(folder))
        page.add(timings(folder))
        page.add(footer(folder))
        return page.finish(title: "\(folder.dataset): seedforge report")
    }

    // MARK: - Sections

    static func header(_ folder: DatasetFolder) -> String {
        var html = "<header><h1>\(HTMLText.escape(folder.dataset))</h1>"
        if let description = folder.description { html += "<p>\(HTMLText.escape(description))</p>" }
        var run: [String] = []
        if let started = folder.startedAt { run.append("run started \(HTMLText.escape(started))") }
        if let seconds = folder.seconds { run.append("took \(HTMLText.seconds(seconds))") }
        run.append("seedforge \(HTMLText.escape(folder.toolVersion))")
        html += "<p class=\"run\">\(run.joined(separator: " · "))</p>"
        html += "<nav>"
        html += folder.accounts.map {
            "<a href=\"#c-\(HTMLText.anchor($0.collection))\">\(HTMLText.escape($0.collection))</a>"
        }
        .joined(separator: " · ")
        html += " · <a href=\"#changes\">changes</a> · <a href=\"#timings\">timings</a></nav></header>"
        return html
    }

    /// Every collection's accounting in one table; each number carries
    /// `data-collection` and `data-count` so a test can compare it with the manifest.
    static func summary(_ folder: DatasetFolder) -> String {
        let columns: [(String, String, (DatasetFolder.Account) -> Int)] = [
            ("read", "read", \.read), ("received", "received", \.received), ("rejected", "rejected", \.rejected),
            ("duplicates", "duplicates", \.duplicates), ("appended", "appended elsewhere", \.appended),
            ("reference", "reference only", \.reference), ("emitted", "emitted", \.emitted),
        ]
        var html = "<section id=\"summary\"><h2>Accounting</h2><div class=\"scroll\"><table class=\"counts\">"
        html += "<thead><tr><th>collection</th>"
        html += columns.map { "<th class=\"num\">\(HTMLText.escape($0.1))</th>" }.joined()
        html += "<th>balanced</th></tr></thead><tbody>"
        for account in folder.accounts {
            let name = HTMLText.escape(account.collection)
            html += "<tr><th scope=\"row\"><a href=\"#c-\(HTMLText.anchor(account.collection))\">\(name)</a></th>"
            for (key, _, value) in columns {
                html += "<td class=\"num\" data-collection=\"\(name)\" data-count=\"\(key)\">"
                html += "\(HTMLText.count(value(account)))</td>"
            }
            html += "<td>\(account.balanced ? "yes" : "<strong>no</strong>")</td></tr>"
        }
        html += "</tbody></table></div>"
        html += "<p class=\"note\">read + received = rejected + duplicates + appended elsewhere + reference only "
        html += "+ emitted, for every collection.</p></section>"
        return html
    }

    static func collection(_ account: DatasetFolder.Account, folder: DatasetFolder) throws -> String {
        let name = account.collection
        let rejects = folder.rejects.filter { $0.collection == name }
        let warnings = folder.warnings.filter { $0.collection == name }
        let duplicates = folder.duplicates.filter { $0.collection == name }
        var html = "<section class=\"collection\" id=\"c-\(HTMLText.anchor(name))\" "
        html += "data-collection=\"\(HTMLText.escape(name))\"><h2>\(HTMLText.escape(name))</h2>"
        html += waterfall(account, rejects: rejects)
        html += "<h3>Rejects</h3>" + findings(rejects, noun: "rejected record", tone: .rejected)
        html += "<h3>Warnings</h3>" + findings(warnings, noun: "warning", tone: .warning)
        html += "<h3>Duplicates</h3>" + duplicatesList(duplicates)
        var profile = CollectionProfile()
        html += "<h3>Fields</h3>"
        if let output = folder.dataOutput(for: name) {
            let path = URL(fileURLWithPath: folder.path).appendingPathComponent(output.file).path
            try JSONFile.eachRecord(of: path, ndjson: output.format == "ndjson") { profile.add(record: $0) }
            html += fields(profile, source: output.file)
        } else {
            html += "<p class=\"none\">No JSON or NDJSON output of \(HTMLText.escape(name)) to profile"
            html += account.emitted == 0 ? " (it emits no records)." : "."
            html += "</p>"
        }
        html += map(profile, rejects: rejects, collection: name)
        return html + "</section>"
    }

    /// read → rejected (per rule) → duplicates → appended, reference → emitted.
    static func waterfall(_ account: DatasetFolder.Account, rejects: [DatasetFolder.FindingLine]) -> String {
        var bars: [ReportPlots.Bar] = []
        let total = account.read + account.received
        var remaining = Double(total)
        func attribute(_ key: String) -> String {
            " data-collection=\"\(HTMLText.escape(account.collection))\" data-flow=\"\(key)\""
        }
        bars.append(
            .init(
                label: "read", value: Double(account.read), display: HTMLText.count(account.read), tone: .read,
                attributes: attribute("read")))
        if account.received > 0 {
            bars.append(
                .init(
                    label: "received from other collections", value: Double(account.received),
                    display: HTMLText.count(account.received), start: Double(account.read), tone: .read,
                    attributes: attribute("received")))
        }
        func takeAway(_ label: String, _ count: Int, _ tone: ReportPlots.Tone, _ key: String) {
            guard count > 0 else { return }
            remaining -= Double(count)
            bars.append(
                .init(
                    label: label, value: Double(count), display: "−" + HTMLText.count(count), start: remaining,
                    tone: tone, attributes: attribute(key)))
        }
        var listed = 0
        for (rule, count) in countsByKey(rejects.map(\.rule)) {
            takeAway("rejected: \(rule)", count, .rejected, "rejected:\(rule)")
            listed += count
        }
        takeAway("rejected: other", account.rejected - listed, .rejected, "rejected:other")
        takeAway("duplicates removed", account.duplicates, .duplicate, "duplicates")
        takeAway("appended to another collection", account.appended, .other, "appended")
        takeAway("kept for look-ups only", account.reference, .other, "reference")
        bars.append(
            .init(
                label: "emitted", value: Double(account.emitted), display: HTMLText.count(account.emitted),
                tone: .emitted, attributes: attribute("emitted")))
        let caption =
            "\(account.collection): \(HTMLText.count(total)) records in, \(HTMLText.count(account.emitted)) emitted"
        return "<h3>Accounting</h3>" + ReportPlots.bars(bars, kind: "accounting", caption: caption)
    }

    static func findings(_ lines: [DatasetFolder.FindingLine], noun: String, tone: ReportPlots.Tone) -> String {
        guard !lines.isEmpty else { return "<p class=\"none\">None.</p>" }
        var html = "<p>\(HTMLText.count(lines.count)) \(noun)\(lines.count == 1 ? "" : "s").</p><div class=\"grid\">"
        let byRule = countsByKey(lines.map(\.rule))
        html += ReportPlots.bars(
            byRule.map { .init(label: $0.key, value: Double($0.count), display: HTMLText.count($0.count), tone: tone) },
            kind: "by-rule", caption: "by rule")
        let byFile = countsByKey(lines.map { $0.file ?? "(no file)" })
        var fileBars: [ReportPlots.Bar] = byFile.prefix(filesListed).map {
            .init(label: $0.key, value: Double($0.count), display: HTMLText.count($0.count), tone: tone)
        }
        if byFile.count > filesListed {
            let rest = byFile.dropFirst(filesListed).reduce(0) { $0 + $1.count }
            fileBars.append(
                .init(
                    label: "\(byFile.count - filesListed) other files", value: Double(rest),
                    display: HTMLText.count(rest), tone: tone))
        }
        html += ReportPlots.bars(fileBars, kind: "by-file", caption: "by file")
        html += "</div><div class=\"scroll\"><table class=\"examples\"><caption>First examples of each rule</caption>"
        html += "<thead><tr><th>rule</th><th>file:line:column</th><th>where</th><th>field</th><th>value</th>"
        html += "<th>message</th><th>id</th></tr></thead><tbody>"
        for (rule, _) in byRule {
            for line in lines.lazy.filter({ $0.rule == rule }).prefix(examplesPerRule) {
                var place = line.file ?? ""
                if let number = line.line { place += ":\(number)" }
                if let column = line.column { place += ":\(column)" }
                html += "<tr><td>\(HTMLText.escape(rule))</td><td class=\"place\">\(HTMLText.escape(place))</td>"
                html += "<td class=\"place\">\(HTMLText.escape(line.pointer ?? ""))</td>"
                html += "<td>\(HTMLText.escape(line.field ?? ""))</td>"
                html += "<td class=\"value\">\(HTMLText.escape(HTMLText.value(line.value)))</td>"
                html += "<td>\(HTMLText.escape(line.message))</td>"
                html += "<td>\(HTMLText.escape(line.id.isNull ? "" : HTMLText.value(line.id, limit: 40)))</td></tr>"
            }
        }
        return html + "</tbody></table></div>"
    }

    static func duplicatesList(_ lines: [DatasetFolder.Duplicate]) -> String {
        guard !lines.isEmpty else { return "<p class=\"none\">None.</p>" }
        var html = "<p>\(HTMLText.count(lines.count)) record\(lines.count == 1 ? "" : "s") removed as "
        html += "duplicate\(lines.count == 1 ? "" : "s").</p><div class=\"scroll\"><table class=\"examples\">"
        html += "<caption>First examples</caption><thead><tr><th>id</th><th>file:line</th><th>kept instead</th>"
        html += "</tr></thead><tbody>"
        for line in lines.prefix(examplesPerRule * 2) {
            var place = line.file ?? ""
            if let number = line.line { place += ":\(number)" }
            html += "<tr><td>\(HTMLText.escape(HTMLText.value(line.id, limit: 40)))</td>"
            html += "<td class=\"place\">\(HTMLText.escape(place))</td>"
            html += "<td>\(HTMLText.escape(HTMLText.value(line.winner, limit: 40)))</td></tr>"
        }
        return html + "</tbody></table></div>"
    }

    static func fields(_ profile: CollectionProfile, source: String) -> String {
        guard profile.records > 0, !profile.fields.isEmpty else {
            return "<p class=\"none\">\(HTMLText.escape(source)) holds no records.</p>"
        }
        let records = profile.records
        var html = "<p>\(HTMLText.count(records)) record\(records == 1 ? "" : "s") of "
        html += "<code>\(HTMLText.escape(source))</code>, \(profile.fields.count) fields.</p>"
        html += "<div class=\"scroll\"><table class=\"profile\"><thead><tr><th>field</th><th>type</th>"
        html += "<th class=\"num\">null or missing</th><th class=\"num\">blank</th><th class=\"num\">distinct</th>"
        html += "<th class=\"num\">min</th><th class=\"num\">max</th><th class=\"num\">length</th></tr></thead><tbody>"
        for field in profile.fields {
            let missing = field.nulls + (records - field.present)
            let distinct =
                field.distinctCapped
                ? "over \(HTMLText.count(FieldProfile.distinctLimit))" : HTMLText.count(field.counts.count)
            var low = ""
            var high = ""
            var length = ""
            if let min = field.numbers.min(), let max = field.numbers.max() {
                low = HTMLText.number(min)
                high = HTMLText.number(max)
            }
            if let min = field.lengths.min(), let max = field.lengths.max() {
                length = min == max ? HTMLText.count(min) : "\(HTMLText.count(min))–\(HTMLText.count(max))"
            }
            html += "<tr><th scope=\"row\"><code>\(HTMLText.escape(field.path))</code></th>"
            html += "<td>\(HTMLText.escape(field.typeSummary.isEmpty ? "null" : field.typeSummary))</td>"
            html += "<td class=\"num\">\(HTMLText.percent(missing, of: records))</td>"
            html += "<td class=\"num\">\(HTMLText.percent(field.blanks, of: records))</td>"
            html += "<td class=\"num\">\(distinct)</td><td class=\"num\">\(low)</td><td class=\"num\">\(high)</td>"
            html += "<td class=\"num\">\(length)</td></tr>"
        }
        html += "</tbody></table></div><div class=\"grid\">"
        for field in profile.fields {
            let plots = fieldPlots(field)
            guard !plots.isEmpty else { continue }
            html += "<div class=\"field\"><h4><code>\(HTMLText.escape(field.path))</code></h4>\(plots)</div>"
        }
        return html + "</div>"
    }

    /// A histogram for numbers; the most common values for categories (texts repeated
    /// across records, booleans, list items); a histogram of text lengths for free text.
    static func fieldPlots(_ field: FieldProfile) -> String {
        var html = ""
        if field.isNumeric {
            html += ReportPlots.histogram(
                FieldProfile.histogram(field.numbers), kind: "histogram", caption: "values",
                format: { HTMLText.number($0) })
        }
        let values = field.present - field.nulls
        // Texts that repeat (at most half as many distinct values as values) are categories.
        let categorical =
            !field.counts.isEmpty && !field.isNumeric && !field.distinctCapped
            && field.counts.count * 2 <= max(values, 1) + 1
        if categorical || field.types["boolean"] != nil {
            let top = field.top(topValues)
            let total = field.counts.values.reduce(0, +)
            html += ReportPlots.bars(
                top.map {
                    .init(
                        label: HTMLText.value($0.value, limit: 40), value: Double($0.count),
                        display: "\(HTMLText.count($0.count)) (\(HTMLText.percent($0.count, of: total)))",
                        tone: .emitted)
                }, kind: "top-values",
                caption: field.counts.count > topValues
                    ? "most common of \(HTMLText.count(field.counts.count)) values" : "values")
        }
        if field.types["string"] != nil, !categorical, !field.lengths.isEmpty {
            html += ReportPlots.histogram(
                FieldProfile.histogram(field.lengths.map(Double.init)), kind: "lengths", caption: "text lengths",
                format: { HTMLText.number($0.rounded()) })
        }
        return html
    }

    static func map(_ profile: CollectionProfile, rejects: [DatasetFolder.FindingLine], collection: String) -> String {
        let rejected = rejects.compactMap(\.position)
        guard !profile.positions.isEmpty || !rejected.isEmpty else { return "" }
        let onMap = rejected.filter(\.onGlobe).count
        var html = "<h3>Map</h3>"
        html += ReportPlots.map(
            emitted: profile.positions, rejected: rejected, caption: "\(collection): positions of the records")
        var legend = "<p class=\"legend\"><span class=\"key dot\"></span> \(HTMLText.count(profile.positions.count)) "
        legend += "emitted record\(profile.positions.count == 1 ? "" : "s")"
        let without = profile.records - profile.positions.count - profile.offGlobe
        if without > 0 { legend += " (\(HTMLText.count(without)) without coordinates)" }
        if profile.offGlobe > 0 { legend += " (\(HTMLText.count(profile.offGlobe)) off the globe)" }
        legend += " · <span class=\"key cross\">✕</span> \(HTMLText.count(onMap)) rejected"
        if rejected.count > onMap { legend += " (\(HTMLText.count(rejected.count - onMap)) more off the globe)" }
        if ReportPlots.distinctPoints(profile.positions, step: 0.1).count > ReportPlots.mapPointLimit {
            legend += " · many places: counted in one-degree cells, darker for more records (1, 2–9, 10–99, 100+)"
        }
        return html + legend + "</p>"
    }

    static func changes(_ folder: DatasetFolder) -> String {
        var html = "<section id=\"changes\"><h2>Changes since the last release</h2>"
        guard let changes = folder.changes else {
            return html
                + "<p class=\"none\">No change report: the dataset folder has no <code>changes.ndjson</code>.</p></section>"
        }
        // Collections the run could not compare (a first run, no key) say why.
        for (collection, reason) in folder.notCompared {
            html +=
                "<p class=\"none\">\(HTMLText.escape(collection)): not compared (\(HTMLText.escape(reason))).</p>"
        }
        if changes.isEmpty {
            return html + (folder.notCompared.isEmpty ? "<p class=\"none\">No change.</p>" : "") + "</section>"
        }
        var collections: [String] = []
        for change in changes where !collections.contains(change.collection) { collections.append(change.collection) }
        for name in collections {
            let own = changes.filter { $0.collection == name }
            html += "<h3>\(HTMLText.escape(name))</h3><div class=\"grid\">"
            let kinds: [(String, ReportPlots.Tone)] = [("added", .added), ("removed", .removed), ("changed", .changed)]
            html += ReportPlots.bars(
                kinds.map { kind, tone in
                    let count = own.filter { $0.change == kind }.count
                    return .init(
                        label: kind, value: Double(count), display: HTMLText.count(count), tone: tone,
                        attributes: " data-collection=\"\(HTMLText.escape(name))\" data-change=\"\(kind)\"")
                }, kind: "changes", caption: "records")
            let fieldCounts = countsByKey(own.flatMap(\.fields))
            html += ReportPlots.bars(
                fieldCounts.prefix(10).map {
                    .init(label: $0.key, value: Double($0.count), display: HTMLText.count($0.count), tone: .changed)
                }, kind: "changed-fields", caption: "fields that changed most")
            html += "</div><div class=\"scroll\"><table class=\"examples\"><caption>First examples</caption>"
            html += "<thead><tr><th>change</th><th>id</th><th>fields</th></tr></thead><tbody>"
            for (kind, _) in kinds {
                for change in own.lazy.filter({ $0.change == kind }).prefix(examplesPerRule) {
                    html += "<tr><td>\(kind)</td><td>\(HTMLText.escape(HTMLText.value(change.id, limit: 40)))</td>"
                    html += "<td>\(HTMLText.escape(change.fields.joined(separator: ", ")))</td></tr>"
                }
            }
            html += "</tbody></table></div>"
        }
        return html + "</section>"
    }

    static func timings(_ folder: DatasetFolder) -> String {
        var html = "<section id=\"timings\"><h2>Timings</h2>"
        let steps = folder.steps.compactMap { step in
            step.seconds.map { (label: "\(step.collection) · \(step.step)", seconds: $0) }
        }
        let outputs = folder.outputs.compactMap { output in output.seconds.map { (label: output.file, seconds: $0) } }
        if steps.isEmpty && outputs.isEmpty {
            return html + "<p class=\"none\">The manifest records no timings.</p></section>"
        }
        html += "<div class=\"grid\">"
        html += ReportPlots.bars(
            steps.map { .init(label: $0.label, value: $0.seconds, display: HTMLText.seconds($0.seconds), tone: .time) },
            kind: "step-timings", caption: "per step")
        html += ReportPlots.bars(
            outputs.map {
                .init(label: $0.label, value: $0.seconds, display: HTMLText.seconds($0.seconds), tone: .time)
            },
            kind: "output-timings", caption: "per output")
        return html + "</div></section>"
    }

    static func footer(_ folder: DatasetFolder) -> String {
        "<footer><p>Report of <code>\(HTMLText.escape(folder.path))</code> by seedforge "
            + "\(HTMLText.escape(SeedForgeVersion.current)). Land outline: Natural Earth 1:110m (public domain). "
            + "Distinct counts are exact up to \(HTMLText.count(FieldProfile.distinctLimit)) values per field.</p></footer>"
    }

    /// How often each key occurs, most frequent first, ties in order of first occurrence.
    static func countsByKey(_ keys: [String]) -> [(key: String, count: Int)] {
        var order: [String] = []
        var counts: [String: Int] = [:]
        for key in keys {
            if counts[key] == nil { order.append(key) }
            counts[key, default: 0] += 1
        }
        return order.enumerated().sorted { a, b in
            counts[a.element]! != counts[b.element]! ? counts[a.element]! > counts[b.element]! : a.offset < b.offset
        }.map { ($0.element, counts[$0.element]!) }
    }
}

/// The page around the sections: doctype, a strict Content-Security-Policy (inline
/// styles and nothing else), the viewport for phones, the style sheet.
struct PageWriter {
    private var body = ""

    mutating func add(_ html: String) { body += html }

    func finish(title: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTMLText.escape(title))</title>
        <style>\(Self.style)</style></head>
        <body>\(body)</body></html>

        """
    }

    static let style = """
        :root{--read:#009E73;--emitted:#0072B2;--rejected:#D55E00;--duplicate:#E69F00;--warning:#CC79A7;\
        --other:#999999;--time:#56B4E9}
        *{box-sizing:border-box}
        body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;\
        padding:12px;color:#1a1a1a;background:#fff}
        h1{font-size:1.7em;margin:.2em 0}h2{font-size:1.35em;border-bottom:2px solid var(--emitted);margin-top:1.6em}
        h3{font-size:1.1em;margin:1.2em 0 .4em}h4{margin:0 0 .3em;font-size:1em}
        nav a{white-space:nowrap}.run,.note,.legend,figcaption,footer{color:#444;font-size:.9em}
        table{border-collapse:collapse}th,td{text-align:left;padding:2px 6px;vertical-align:top}
        thead th{border-bottom:1px solid #888}tbody tr:nth-child(even){background:#f5f5f5}
        .num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
        .scroll{overflow-x:auto;max-width:100%}.place,.value{font-family:ui-monospace,monospace;font-size:.85em;\
        word-break:break-all}caption{text-align:left;font-size:.9em;color:#444}
        .examples{min-width:760px}.examples td{max-width:28em}
        figure{margin:6px 0;min-width:0}table.bars{width:100%;table-layout:fixed}
        table.bars th{font-weight:normal;width:38%;overflow-wrap:anywhere}table.bars td.bar{width:40%}
        table.bars td.num{width:22%}table.bars tbody tr{background:none}
        table.bars svg{display:block;width:100%;height:14px}
        .t-read{fill:var(--read)}.t-emitted{fill:var(--emitted)}.t-rejected{fill:var(--rejected)}
        .t-duplicate{fill:var(--duplicate)}.t-warning{fill:var(--warning)}.t-other{fill:var(--other)}
        .t-time{fill:var(--time)}.t-added{fill:var(--read)}.t-removed{fill:var(--rejected)}.t-changed{fill:var(--duplicate)}
        .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(320px,100%),1fr));gap:10px 18px}
        .field{border:1px solid #ccc;border-radius:4px;padding:8px;min-width:0}
        svg.histogram{display:block;width:100%;height:70px;border-bottom:1px solid #888}
        .axis{display:flex;justify-content:space-between;font-size:.8em;color:#444}
        .map svg{display:block;width:100%;height:auto;border:1px solid #ccc}
        .sea{fill:#f2f6f9}.defs{position:absolute}.land{fill:#dadada;stroke:#a8a8a8;stroke-width:.2}
        .dots{fill:none;stroke:var(--emitted);stroke-width:2.2;stroke-linecap:round}
        .cells{stroke:none;fill:var(--emitted)}.shade-0{fill-opacity:.3}.shade-1{fill-opacity:.5}.shade-2{fill-opacity:.75}
        .crosses{fill:none;stroke:var(--rejected);stroke-width:.8}
        .key.dot{display:inline-block;width:.7em;height:.7em;border-radius:50%;background:var(--emitted)}
        .key.cross{color:var(--rejected);font-weight:bold}
        .none{color:#555;font-style:italic}code{font-size:.92em}
        @media (max-width:600px){body{font-size:14px;padding:6px}th,td{padding:2px 3px}}
        @media print{*{-webkit-print-color-adjust:exact;print-color-adjust:exact}.field,figure{break-inside:avoid}\
        .scroll{overflow:visible}}
        """
}
