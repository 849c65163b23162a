/// The report's plots, as inline SVG inside `<figure class="plot">`. Every plot says what
/// it draws in `data-plot` and how many marks it holds in `data-marks` (each mark carries
/// the class `mark`), so a test reading the DOM can check that no plot is empty; a plot
/// with nothing to draw is never written (the page says "none" instead).
///
/// Colours are the Okabe–Ito palette (distinguishable with the common colour-vision
/// deficiencies and in grey print), and every bar has its number written beside it, so
/// no meaning rests on colour alone.
enum ReportPlots {
    enum Tone: String {
        case read, emitted, rejected, duplicate, warning, other, time, added, removed, changed
    }

    struct Bar {
        var label: String
        var value: Double
        var display: String
        /// Where the bar starts, in the same unit as `value` (waterfalls).
        var start: Double = 0
        var tone: Tone
        /// Attributes for the number's cell (e.g. `data-count="read"`), already escaped.
        var attributes: String = ""
    }

    /// A table of labelled horizontal bars (one row each), all on one scale.
    static func bars(_ bars: [Bar], kind: String, caption: String) -> String {
        let scale = bars.map { $0.start + $0.value }.max() ?? 0
        guard !bars.isEmpty, scale > 0 else { return "" }
        var html = "<figure class=\"plot\" data-plot=\"\(kind)\" data-marks=\"\(bars.count)\">"
        html += "<figcaption>\(HTMLText.escape(caption))</figcaption><table class=\"bars\"><tbody>"
        for bar in bars {
            let x = bar.start / scale * 100
            var width = bar.value / scale * 100
            if bar.value > 0 { width = max(width, 0.4) }
            let label = HTMLText.escape(bar.label)
            html += "<tr><th scope=\"row\">\(label)</th><td class=\"bar\">"
            html += "<svg viewBox=\"0 0 100 6\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"\(label): "
            html += "\(HTMLText.escape(bar.display))\"><rect class=\"mark t-\(bar.tone.rawValue)\" x=\"\(svg(x))\" "
            html += "y=\"0\" width=\"\(svg(width))\" height=\"6\"/></svg></td>"
            html += "<td class=\"num\"\(bar.attributes)>\(HTMLText.escape(bar.display))</td></tr>"
        }
        return html + "</tbody></table></figure>"
    }

    /// Columns for a histogram, with the range written under it.
    static func histogram(
        _ bins: [(low: Double, high: Double, count: Int)], kind: String, caption: String, format: (Double) -> String
    ) -> String {
        let highest = bins.map(\.count).max() ?? 0
        guard highest > 0 else { return "" }
        let width = 200.0 / Double(bins.count)
        var html = "<figure class=\"plot\" data-plot=\"\(kind)\" data-marks=\"\(bins.count)\">"
        html += "<figcaption>\(HTMLText.escape(caption))</figcaption>"
        html += "<svg class=\"histogram\" viewBox=\"0 0 200 50\" preserveAspectRatio=\"none\" role=\"img\" "
        html += "aria-label=\"\(HTMLText.escape(caption))\">"
        for (index, bin) in bins.enumerated() {
            var height = Double(bin.count) / Double(highest) * 48
            if bin.count > 0 { height = max(height, 1) }
            let range = bin.low == bin.high ? format(bin.low) : "\(format(bin.low))–\(format(bin.high))"
            html += "<rect class=\"mark t-emitted\" x=\"\(svg(Double(index) * width + 0.5))\" "
            html += "y=\"\(svg(50 - height))\" width=\"\(svg(max(width - 1, 0.5)))\" height=\"\(svg(height))\">"
            html += "<title>\(HTMLText.escape(range)): \(HTMLText.count(bin.count))</title></rect>"
        }
        html += "</svg><div class=\"axis\"><span>\(HTMLText.escape(format(bins.first!.low)))</span>"
        html += "<span>\(HTMLText.escape(format(bins.last!.high)))</span></div></figure>"
        return html
    }

    /// At most this many distinct places are drawn one by one; more are counted in cells
    /// of one degree, shaded by how many records each holds.
    static let mapPointLimit = 5_000

    /// An equirectangular world map (x = longitude + 180, y = 90 − latitude, 360 × 180
    /// units) with the land of `WorldOutline`, the emitted records' positions as blue dots
    /// (or shaded one-degree cells when there are many) and rejected records' positions
    /// as vermillion crosses.
    static func map(emitted: [Position], rejected: [Position], caption: String) -> String {
        let placed = emitted.filter(\.onGlobe)
        let crossed = rejected.filter(\.onGlobe)
        guard !placed.isEmpty || !crossed.isEmpty else { return "" }
        var marks = 0
        var body = ""
        let points = distinctPoints(placed, step: 0.1)
        if points.count <= mapPointLimit {
            if !points.isEmpty {
                body +=
                    "<path class=\"mark dots t-emitted\" d=\"\(points.map { "M\(svg($0.x)) \(svg($0.y))h0" }.joined())\"/>"
                marks += 1
            }
        } else {
            // Cells of one degree, in four shades: 1, 2–9, 10–99, 100 or more records.
            var cells: [Int: Int] = [:]
            for position in placed {
                let column = min(359, Int(position.lon + 180))
                let row = min(179, Int(90 - position.lat))
                cells[row * 360 + column, default: 0] += 1
            }
            var shades = [String](repeating: "", count: 4)
            for (cell, count) in cells.sorted(by: { $0.key < $1.key }) {
                let shade = count >= 100 ? 3 : count >= 10 ? 2 : count >= 2 ? 1 : 0
                shades[shade] += "M\(cell % 360) \(cell / 360)h1v1h-1z"
            }
            for (shade, path) in shades.enumerated() where !path.isEmpty {
                body += "<path class=\"mark cells shade-\(shade) t-emitted\" d=\"\(path)\"/>"
                marks += 1
            }
        }
        let crosses = distinctPoints(crossed, step: 0.1)
        if !crosses.isEmpty {
            let shown =
                crosses.count > mapPointLimit
                ? stride(from: 0, to: crosses.count, by: crosses.count / mapPointLimit + 1).map { crosses[$0] }
                : crosses
            body += "<path class=\"mark crosses t-rejected\" d=\""
            body += shown.map { "M\(svg($0.x - 1.2)) \(svg($0.y - 1.2))l2.4 2.4m0-2.4l-2.4 2.4" }.joined()
            body += "\"/>"
            marks += 1
        }
        var html =
            "<figure class=\"plot map\" data-plot=\"map\" data-marks=\"\(marks)\" data-points=\"\(placed.count)\" "
        html += "data-rejected-points=\"\(crossed.count)\"><figcaption>\(HTMLText.escape(caption))</figcaption>"
        html += "<svg viewBox=\"0 0 360 180\" role=\"img\" aria-label=\"\(HTMLText.escape(caption))\">"
        html += "<rect class=\"sea\" width=\"360\" height=\"180\"/><use href=\"#world-land\" class=\"land\"/>"
        return html + body + "</svg></figure>"
    }

    /// The land outline, defined once per page for every map to `use`.
    static let landDefinition =
        "<svg class=\"defs\" width=\"0\" height=\"0\" aria-hidden=\"true\"><defs><path id=\"world-land\" d=\""
        + WorldOutline.path + "\"/></defs></svg>"

    /// Positions in the map's frame, rounded to `step` degrees, each place once, in a
    /// fixed order.
    static func distinctPoints(_ positions: [Position], step: Double) -> [(x: Double, y: Double)] {
        var seen = Set<Int>()
        var points: [(x: Double, y: Double)] = []
        for position in positions {
            let column = Int(((position.lon + 180) / step).rounded())
            let row = Int(((90 - position.lat) / step).rounded())
            if seen.insert(row * 10_000_000 + column).inserted {
                points.append((Double(column) * step, Double(row) * step))
            }
        }
        return points.sorted { $0.y != $1.y ? $0.y < $1.y : $0.x < $1.x }
    }

    /// A coordinate for SVG: at most two decimals, no trailing zeros.
    static func svg(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = String(rounded)
        if text.count > 8 { text = String(format: "%.2f", rounded) }
        return text
    }
}
