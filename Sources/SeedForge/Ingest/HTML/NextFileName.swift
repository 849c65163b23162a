import Foundation

/// `next-page-file` of an html source: the file a next link was saved as, when a crawler
/// named the pages its own way (Scrapy saving the link `/page/2/` as `quotes-2.html`).
/// Either a template over the page number (`quotes-{page}.html`: the page after page N is
/// `quotes-(N+1).html`), or a regular expression over the link with a file name template
/// taking its groups (`{link: "/page/(\\d+)/", file: "quotes-$1.html"}`).
struct NextFileName: Sendable {
    enum Rule: @unchecked Sendable {
        case pageNumber(String)
        case link(NSRegularExpression, pattern: String, file: String)
    }

    struct Refusal: Error {
        let message: String
    }

    let rule: Rule

    init(_ node: ConfigNode) throws {
        if case .mapping = node.node {
            let spec = try node.mapping("'next-page-file'")
            let unknown = spec.unknownKeys(allowed: ["link", "file"])
            if let first = unknown.first { throw first }
            let pattern = try spec.requiredString("link")
            let file = try spec.requiredString("file")
            let regex: NSRegularExpression
            do {
                regex = try NSRegularExpression(pattern: pattern)
            } catch {
                throw spec["link"]!.error("'link' of 'next-page-file' is not a valid regular expression: \(pattern)")
            }
            let groups = regex.numberOfCaptureGroups
            if let used = Self.groupsUsed(in: file).first(where: { $0 > groups }) {
                throw spec["file"]!.error(
                    "'file' of 'next-page-file' uses $\(used), but 'link' has \(groups) group\(groups == 1 ? "" : "s") in parentheses"
                )
            }
            rule = .link(regex, pattern: pattern, file: file)
        } else {
            let template = try node.string("'next-page-file'")
            guard template.contains("{page}") else {
                throw node.error(
                    "'next-page-file' must hold {page} (the next page's number), such as \"quotes-{page}.html\", or be {link: REGEX, file: TEMPLATE}"
                )
            }
            rule = .pageNumber(template)
        }
    }

    /// The `$N` group numbers a file template uses.
    static func groupsUsed(in template: String) -> [Int] {
        var used: [Int] = []
        var rest = Substring(template)
        while let dollar = rest.firstIndex(of: "$") {
            rest = rest[rest.index(after: dollar)...]
            let digits = rest.prefix(while: \.isASCIIDigit)
            if let number = Int(digits) { used.append(number) }
        }
        return used
    }

    /// The file (relative to the page's folder) the link `href` on page `page` leads to.
    func file(forLink href: String, after page: Int) -> Result<String, Refusal> {
        switch rule {
        case .pageNumber(let template):
            return .success(template.replacingOccurrences(of: "{page}", with: String(page + 1)))
        case .link(let regex, let pattern, let template):
            let range = NSRange(href.startIndex..., in: href)
            guard let match = regex.firstMatch(in: href, range: range) else {
                return .failure(
                    Refusal(
                        message:
                            "the next link '\(href)' does not match next-page-file's link pattern '\(pattern)'; stopped here"
                    ))
            }
            var file = ""
            var rest = Substring(template)
            while let dollar = rest.firstIndex(of: "$") {
                file += rest[..<dollar]
                rest = rest[rest.index(after: dollar)...]
                let digits = rest.prefix(while: \.isASCIIDigit)
                guard let number = Int(digits) else {
                    file += "$"
                    continue
                }
                rest = rest.dropFirst(digits.count)
                if let group = Range(match.range(at: number), in: href) { file += href[group] }
            }
            file += rest
            return .success(file)
        }
    }
}
