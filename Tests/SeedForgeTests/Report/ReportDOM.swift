import CLibXML2
import Foundation

@testable import SeedForge

/// An HTML report (the file seedforge wrote, or the DOM Chromium dumped after rendering
/// it) parsed by libxml2, with the checks both the file tests and the browser test make.
final class ReportDOM {
    let document: HTMLDocument

    init(_ html: String) throws {
        guard let document = HTMLDocument(bytes: Array(html.utf8), url: "report.html", encoding: "UTF-8") else {
            throw IOFailure("libxml2 could not parse the report")
        }
        self.document = document
    }

    func nodes(_ xpath: String) -> [xmlNodePtr] { document.select(xpath) }

    func texts(_ xpath: String) -> [String] {
        nodes(xpath).map { HTMLDocument.text($0).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    func attribute(_ name: String, _ node: xmlNodePtr) -> String? { HTMLDocument.attribute(name, of: node) }

    /// The number a cell shows (`206,352` → 206352).
    static func number(_ text: String) -> Int? {
        Int(text.replacingOccurrences(of: ",", with: "").replacingOccurrences(of: "−", with: ""))
    }

    /// The accounting table's numbers: collection → count name → value.
    func shownCounts() -> [String: [String: Int]] {
        var counts: [String: [String: Int]] = [:]
        for cell in nodes("//td[@data-count]") {
            let collection = attribute("data-collection", cell) ?? ""
            let key = attribute("data-count", cell) ?? ""
            counts[collection, default: [:]][key] = Self.number(HTMLDocument.text(cell))
        }
        return counts
    }

    static let markXPath = ".//*[contains(concat(' ', normalize-space(@class), ' '), ' mark ')]"

    /// What is wrong with the plots: a plot whose marks are not the number it declares,
    /// one without marks, or whose marks draw nothing (zero-width bars, empty paths).
    func plotProblems() -> [String] {
        var problems: [String] = []
        for figure in nodes("//figure[@data-plot]") {
            let kind = attribute("data-plot", figure) ?? "?"
            let marks = document.select(Self.markXPath, from: figure)
            let declared = Int(attribute("data-marks", figure) ?? "") ?? -1
            if marks.isEmpty { problems.append("\(kind): no marks") }
            if marks.count != declared { problems.append("\(kind): \(marks.count) marks, declares \(declared)") }
            let drawing = marks.filter { mark in
                if let d = attribute("d", mark) { return d.count > 2 }
                let width = Double(attribute("width", mark) ?? "0") ?? 0
                let height = Double(attribute("height", mark) ?? "0") ?? 0
                return width > 0 && height > 0
            }
            if drawing.isEmpty { problems.append("\(kind): every mark is empty") }
        }
        return problems
    }

    /// The page's structure without its numbers or drawings: headings, plots (kind and
    /// number of marks), table captions and column headers, in document order. Golden
    /// files pin this, not the SVG bytes.
    func structure() -> String {
        let xpath =
            "//h1 | //h2 | //h3 | //h4 | //figure[@data-plot] | //table/caption | //table/thead/tr | //p[@class='none']"
        return nodes(xpath).map { node -> String in
            let name = String(cString: node.pointee.name)
            switch name {
            case "figure":
                let marks = attribute("data-marks", node) ?? "?"
                return "  plot \(attribute("data-plot", node) ?? "?") (\(marks) marks)"
            case "caption": return "  table: \(HTMLDocument.text(node))"
            case "tr":
                return "    columns: "
                    + document.select("./th", from: node).map { HTMLDocument.text($0) }.joined(separator: " | ")
            case "p": return "  none: \(HTMLDocument.text(node))"
            default:
                let text = HTMLDocument.text(node).trimmingCharacters(in: .whitespacesAndNewlines)
                return String(repeating: "#", count: Int(name.dropFirst()) ?? 1) + " " + text
            }
        }.joined(separator: "\n") + "\n"
    }
}
