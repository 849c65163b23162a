import Foundation

/// Rules for following "next" links from page to page: the link must point to a saved
/// file in the start page's folder (or below it), not to a page already read, and the
/// page count stays within the source's limit.
enum FollowCheck {
    /// Marks a next link that is an address or a site-root path, not a relative file link.
    static let notRelative = "\u{1}link:"

    static func problem(next: String, from page: String, root start: String, visited: Set<String>, pages: Int, limit: Int) -> String? {
        if next.hasPrefix(notRelative) {
            return "the next link '\(next.dropFirst(notRelative.count))' leaves the saved pages (an address or a site-root path, not a relative link); stopped here"
        }
        // Symbolic links are resolved first, so a link cannot lead out through one.
        let folder = URL(fileURLWithPath: start).deletingLastPathComponent().resolvingSymlinksInPath().path
        let resolved = URL(fileURLWithPath: next).resolvingSymlinksInPath().path
        guard resolved.hasPrefix(folder + "/") else {
            return "the next link leads to \(Paths.display(next)), outside the folder of the start page; stopped here"
        }
        if visited.contains(next) || visited.contains(resolved) { return "the next link leads back to \(Paths.display(next)), read already (a loop); stopped here" }
        guard FileManager.default.fileExists(atPath: next) else { return "the next link leads to \(Paths.display(next)), which does not exist; stopped here" }
        if pages >= limit { return "max-pages (\(limit)) reached; the next page \(Paths.display(next)) is not read" }
        return nil
    }
}
