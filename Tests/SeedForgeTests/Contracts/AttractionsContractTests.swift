import Foundation
import Testing

/// The city guide (`seeds/000`): an `Attraction` with a UUID id (favourites are a
/// `Set<UUID>`), a category of Food, Museum, Sports or Historical, a 0-5 rating and
/// whether it is open.
@Suite("Contracts: city guide app")
struct AttractionsContractTests {
    struct Attraction: Codable, Identifiable {
        enum Category: String, Codable, CaseIterable {
            case food = "Food"
            case museum = "Museum"
            case sports = "Sports"
            case historical = "Historical"
        }

        let id: UUID
        let name: String
        let city: String
        let category: Category
        let description: String
        let rating: Double
        let isOpen: Bool
    }

    @Test func attractionsDecodeAsTheAppsModel() throws {
        let dir = try Contract.run("attractions")
        let attractions = try Contract.decode([Attraction].self, "attractions/attractions.json", in: dir)
        #expect(attractions.count == 14)
        #expect(Set(attractions.map(\.id)).count == attractions.count)
        #expect(attractions.allSatisfy { (0...5).contains($0.rating) })
        #expect(Set(attractions.map(\.city)).isSubset(of: ["Paris", "Rome", "Barcelona", "Berlin"]))
        // The category filter keeps the matching attractions (the app's bug removed them).
        struct Listed: Codable {
            let id: UUID
            let name: String
            let city: String
            let rating: Double
        }
        let food = try Contract.decode([Listed].self, "attractions/food.json", in: dir)
        #expect(food.map(\.id) == attractions.filter { $0.category == .food }.map(\.id))
        #expect(!food.isEmpty)
    }
}
