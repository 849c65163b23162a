import Foundation

/// Rules for following "next" links from page to page: the link must point to a saved
/// file in the start page's folder (or below it), not to a page already read, and the
/// page count stays within the source's limit. A link to a page that was not saved is
/// `missing`: the pages after it would be lost, so the run fails; the other problems stop
/// the following with a warning.
public enum FollowCheck {
    /// `on-missing-page:` of a source that follows pages: what a link to a page that was
    /// not saved does. `fail` (the default): the run fails, since the pages after it would
    /// be lost silently. `warn`: a `missing-page` warning, the pages read are kept, and the
    /// manifest lists the source under `incomplete`.
    public enum MissingPage: String, CaseIterable, Sendable {
        case fail, warn

        static let key = KeySpec(
            "on-missing-page",
            #"a next page that was not saved: `fail` (default: the run fails, exit 1) or `warn`: the pages read are kept, a `missing-page` warning names the page and the file it asked for, and the manifest lists the source under `incomplete` (`[{"collection", "page", "missing"}]`, paths relative to the pipeline's folder; the key is absent when every source was read whole)"#
        )

        /// The policy a source gives; `following` names the key that makes it follow pages.
        static func parse(_ config: ConfigMap, follows: Bool, following: String) throws -> MissingPage {
            guard let node = config[key.name] else { return .fail }
            guard follows else {
                throw node.error("'\(key.name)' needs '\(following)': only a source that follows pages can miss one")
            }
            return try config.choice(key.name, MissingPage.self, choices: allCases) ?? .fail
        }
    }

    /// A problem with a next link: its message, and whether it loses pages.
    struct Problem {
        let message: String
        let missing: Bool
    }

    /// `visited` holds the pages read so far, with symbolic links resolved.
    static func problem(next: String, root start: String, visited: Set<String>, pages: Int, limit: Int) -> Problem? {
        func stop(_ message: String) -> Problem { Problem(message: message, missing: false) }
        // Symbolic links are resolved first, so a link cannot lead out through one.
        let folder = URL(fileURLWithPath: start).deletingLastPathComponent().resolvingSymlinksInPath().path
        let resolved = URL(fileURLWithPath: next).resolvingSymlinksInPath().path
        guard resolved.hasPrefix(folder + "/") else {
            return stop(
                "the next link leads to \(Paths.display(next)), outside the folder of the start page; stopped here")
        }
        if visited.contains(resolved) {
            return stop("the next link leads back to \(Paths.display(next)), read already (a loop); stopped here")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: next, isDirectory: &isFolder) else {
            return Problem(
                message:
                    "the next link leads to \(Paths.display(next)), which does not exist (a page was not saved); the pages after this one are not read",
                missing: true)
        }
        if isFolder.boolValue {
            return Problem(
                message: "the next link leads to \(Paths.display(next)), which is a folder, not a saved page",
                missing: true)
        }
        if pages >= limit {
            return stop("max-pages (\(limit)) reached; the next page \(Paths.display(next)) is not read")
        }
        return nil
    }
}
