import Foundation
import Testing

/// Issue 14: restaurants with their reviews nested (`ratings: [{stars, comment}]`), the
/// reviews unnested into a collection that rating-summary averages.
@Suite("End to end: nested reviews", .serialized)
struct NestedReviewsEndToEndTests {
    @Test func restaurantsGetTheAverageOfTheirNestedReviews() throws {
        let dir = try TempDir()
        let run = try CLI.run(["run", "Fixtures/restaurants/restaurants.yml", "--out", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let restaurants = try #require(
            try jsonObject(dir.bytes("restaurants/restaurants.json")) as? [[String: Any]])
        #expect(restaurants.map { $0["communityRating"] as? Double } == [4.5, 4, 3.25, nil])
        #expect(restaurants.map { $0["reviewCount"] as? Int } == [2, 2, 2, 0])
        let rejects = try dir.read("restaurants/rejects.ndjson")
        #expect(rejects.contains(#""line":29,"column":17,"pointer":"/2/ratings/1/stars""#), "\(rejects)")
        let test = try CLI.run(["test", "Fixtures/restaurants/restaurants.yml"])
        #expect(test.status == 0 && test.stdout.contains("2 passed, 0 failed"), "\(test.stdout)")
    }
}
