import Foundation
import Testing

/// The attractions pipeline of the city guide, through the real binary.
@Suite("End to end: attractions")
struct AttractionsEndToEndTests {
    @Test func categoriesRatingsSearchAndStatistics() throws {
        let dir = try TempDir()
        let run = try CLI.run(["run", "pipelines/attractions.yml", "--out", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("attractions: wrote 14 attractions"))
        let attractions = try #require(jsonObject(dir.bytes("attractions/attractions.json")) as? [[String: Any]])
        #expect(Set(attractions.map { $0["category"] as! String }) == ["Food", "Museum", "Sports", "Historical"])
        #expect(
            attractions.map { $0["city"] as! String } == [
                "Barcelona", "Barcelona", "Barcelona", "Barcelona", "Berlin", "Berlin", "Berlin", "Paris", "Paris",
                "Paris", "Paris", "Rome", "Rome", "Rome",
            ])
        #expect(
            attractions.prefix(4).map { $0["name"] as! String } == [
                "Camp Nou", "La Boqueria", "Parc Güell", "Sagrada Família",
            ])

        let rejects = try dir.read("attractions/rejects.ndjson")
        #expect(
            rejects.contains(
                "rating 9.6 is above the maximum 5 (ratings use the 0-5 scale and are never rescaled; a value above 5 may have been doubled upstream)"
            ))
        #expect(rejects.contains(#"category \"Nightlife\" is none of Food, Museum, Sports, Historical"#))

        // Statistics, checked against values computed by hand from the fixture.
        let cities = try #require(jsonObject(dir.bytes("attractions/stats/cities.json")) as? [[String: Any]])
        let paris = try #require(cities.first { $0["city"] as? String == "Paris" })
        #expect(paris["attractions"] as? Int == 4 && paris["open"] as? Int == 3)
        #expect(paris["meanRating"] as? Double == 4.55)  // (4.7 + 4.8 + 4.3 + 4.4) / 4
        let rome = try #require(cities.first { $0["city"] as? String == "Rome" })
        #expect(rome["meanRating"] as? Double == 4.67)  // (4.8 + 4.6 + 4.6) / 3, the doubled 9.6 rejected
        let categories = try #require(jsonObject(dir.bytes("attractions/stats/categories.json")) as? [[String: Any]])
        let historical = try #require(categories.first { $0["category"] as? String == "Historical" })
        #expect(historical["attractions"] as? Int == 6 && historical["open"] as? Int == 6)
        #expect(historical["meanRating"] as? Double == 4.68)  // 28.1 / 6

        // A category filter keeps the matching attractions.
        let food = try #require(jsonObject(dir.bytes("attractions/food.json")) as? [[String: Any]])
        #expect(
            food.map { $0["name"] as! String } == [
                "La Boqueria", "Curry 36", "Le Comptoir du Relais", "Trattoria Da Enzo",
            ])

        // Search by name or by city, in dataset order.
        let query = try CLI.run(["query", dir.path + "/attractions", "par"])
        #expect(
            query.stdout == """
                Parc Güell, Barcelona
                Eiffel Tower, Paris
                Le Comptoir du Relais, Paris
                Louvre Museum, Paris
                Parc des Princes, Paris
                Parco degli Acquedotti, Rome

                """)
        #expect(try CLI.run(["query", dir.path + "/attractions", "ber"]).stdout.split(separator: "\n").count == 3)
        #expect(
            try CLI.run(["query", dir.path + "/attractions", "", "--limit", "5", "--page", "3"]).stdout.split(
                separator: "\n"
            ).count == 4)
    }
}
