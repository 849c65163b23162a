import Foundation

/// Rules for following "next" links from page to page: the link must point to a saved
/// file in the start page's folder (or below it), not to a page already read, and the
/// page count stays within the source's limit. A link to a page that was not saved is
/// `missing`: the pages after it would be lost, so the run fails; the other problems stop
/// the following with a warning.
enum FollowCheck {
    /// A problem with a next link: its message, and whether it loses pages.
    struct Problem {
        let message: String
        let missing: Bool
    }

    static func problem(next page: NextPage, root start: String, visited: Set<String>, pages: Int, limit: Int) -> Problem? {
        guard let message = warning(next: page, root: start, visited: visited, pages: pages, limit: limit) else {
            guard case .file(let next) = page else { return nil }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: next, isDirectory: &isFolder) else {
                return Problem(message: "the next link leads to \(Paths.display(next)), which does not exist (a page was not saved); the pages after this one are not read", missing: true)
            }
            if isFolder.boolValue { return Problem(message: "the next link leads to \(Paths.display(next)), a folder, not a saved page", missing: true) }
            return nil
        }
        return Problem(message: message, missing: false)
    }

    static func warning(next page: NextPage, root start: String, visited: Set<String>, pages: Int, limit: Int) -> String? {
        let next: String
        switch page {
        case .refused(let reason): return reason
        case .failed(let error): return error.message
        case .file(let file): next = file
        }
        // Symbolic links are resolved first, so a link cannot lead out through one.
        let folder = URL(fileURLWithPath: start).deletingLastPathComponent().resolvingSymlinksInPath().path
        let resolved = URL(fileURLWithPath: next).resolvingSymlinksInPath().path
        guard resolved.hasPrefix(folder + "/") else {
            return "the next link leads to \(Paths.display(next)), outside the folder of the start page; stopped here"
        }
        if visited.contains(next) || visited.contains(resolved) { return "the next link leads back to \(Paths.display(next)), read already (a loop); stopped here" }
        if !FileManager.default.fileExists(atPath: next) { return nil }   // missing: see `problem`
        if pages >= limit { return "max-pages (\(limit)) reached; the next page \(Paths.display(next)) is not read" }
        return nil
    }
}
