import Foundation
import Testing

/// Issue 14: quote pages saved by a crawler under its own names (`quotes-2.html` for the
/// link `/page/2/`), each quote's tags taken as a list.
@Suite("End to end: saved quote pages", .serialized)
struct SavedQuotesEndToEndTests {
    @Test func theSiteLinksAreFollowedToTheSavedFilesAndTagsAreLists() throws {
        let dir = try TempDir()
        let run = try CLI.run(["run", "Fixtures/quotes/quotes.yml", "--out", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let quotes = try #require(try jsonObject(dir.bytes("quotes/quotes.json")) as? [[String: Any]])
        #expect(quotes.count == 6)
        #expect(quotes.first?["tags"] as? [String] == ["maps", "travel"])
        #expect(quotes.first?["tagLine"] as? String == "maps, travel")
        #expect(quotes.last?["author"] as? String == "Ines Marlow")
        let manifest = try dir.read("quotes/manifest.json")
        for page in 1...3 { #expect(manifest.contains("quotes-\(page).html")) }
        let test = try CLI.run(["test", "Fixtures/quotes/quotes.yml"])
        #expect(test.status == 0 && test.stdout.contains("1 passed, 0 failed"), "\(test.stdout)")
    }
}
