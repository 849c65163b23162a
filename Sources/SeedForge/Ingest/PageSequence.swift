/// What a page file of a paginated dump says about itself (`page-number`, `page-count`).
public struct PageMetadata: Sendable {
    public let file: String
    public let number: Int
    public let count: Int?
    public let location: Location

    /// The page file's number in the run's `InputFiles` (its location is in that file):
    /// what pages are matched to their records and files by, not `file`, which is only shown.
    public var fileNumber: Int { location.fileNumber }
}

/// Checks that the pages of a paginated dump form a complete sequence 1...N: no page
/// missing, none twice, every page agreeing on N. Any gap fails the run: a nightly job
/// must not publish a dataset with a page of cities silently missing.
public enum PageSequence {
    public static func problems(_ pages: [PageMetadata]) -> [SourceError] {
        var errors: [SourceError] = []
        var byNumber: [Int: PageMetadata] = [:]
        for page in pages {
            if let other = byNumber[page.number] {
                errors.append(
                    SourceError(
                        location: page.location,
                        message: "page \(page.number) appears twice: in \(other.file) and in \(page.file)"))
            } else {
                byNumber[page.number] = page
            }
        }
        let counts = Set(pages.compactMap(\.count))
        if counts.count > 1, let odd = pages.first(where: { $0.count != pages.first?.count }), let first = pages.first {
            errors.append(
                SourceError(
                    location: odd.location,
                    message:
                        "the page count disagrees: \(first.file) says \(first.count.map(String.init) ?? "nothing"), \(odd.file) says \(odd.count.map(String.init) ?? "nothing")"
                ))
        }
        let expected = counts.count == 1 ? counts.first! : (byNumber.keys.max() ?? 0)
        // A claim far beyond the files found is reported as such, without walking every number.
        if expected > byNumber.count + 10_000,
            let anchor = pages.first(where: { $0.count == expected || $0.number == expected }) ?? pages.first
        {
            errors.append(
                SourceError(
                    location: anchor.location,
                    message: "the dump claims \(expected) pages but \(pages.count) page files were found"))
            return errors
        }
        let missing = (1...max(expected, 1)).filter { byNumber[$0] == nil && expected > 0 }
        if !missing.isEmpty, let anchor = pages.first {
            let shown =
                missing.prefix(10).map(String.init).joined(separator: ", ") + (missing.count > 10 ? ", ..." : "")
            errors.append(
                SourceError(
                    location: anchor.location, message: "\(missing.count) of \(expected) pages missing: page \(shown)"))
        }
        if let beyond = pages.first(where: { $0.number > expected || $0.number < 1 }) {
            errors.append(
                SourceError(
                    location: beyond.location, message: "page number \(beyond.number) is outside 1...\(expected)"))
        }
        return errors
    }
}
