import Foundation
import Testing

/// The honey shops app (`seeds/004`): "ShopSeed (decoded from seed JSON)" with
/// `coordinates: [Double; lat, lon]` and snake_case links, plus the ratings the app
/// computes from reviews ("Community 4.3 (12) · Seed 4.8"), which the dataset carries;
/// reviews as the app's ReviewEntity holds them.
@Suite("Contracts: honey shops app")
struct HoneyShopsContractTests {
    struct ShopSeed: Codable, Identifiable, Equatable {
        let id: String
        let name: String
        let description: String?
        let picture: URL?
        let rating: Double
        let address: String
        let coordinates: [Double]
        let googleMapsLink: URL?
        let website: URL?
        // What the app computes from its reviews, precomputed by the pipeline.
        let displayedRating: Double
        let communityRating: Double?
        let seedRating: Double
        let reviewCount: Int

        enum CodingKeys: String, CodingKey {
            case id, name, description, picture, rating, address, coordinates
            case googleMapsLink = "google_maps_link"
            case website, displayedRating, communityRating, seedRating, reviewCount
        }

        var latitude: Double { coordinates[0] }
        var longitude: Double { coordinates[1] }
    }

    struct Review: Codable {
        let id: UUID
        let shopID: String
        let createdAt: Date
        let rating: Double
        let title: String?
        let comment: String?
    }

    @Test func shopsDecodeAsShopSeed() throws {
        let dir = try Contract.run("honey-shops")
        let shops = try Contract.decode([ShopSeed].self, "honey-shops/shops.json", in: dir)
        #expect(shops.count == 8)
        #expect(
            shops.allSatisfy {
                $0.coordinates.count == 2 && (-90...90).contains($0.latitude) && (-180...180).contains($0.longitude)
            })
        #expect(shops.allSatisfy { (0...5).contains($0.rating) && (0...5).contains($0.displayedRating) })
        let house = try #require(shops.first { $0.id == "house-of-honey" })
        #expect(house.name == "The House of Honey")
        #expect(house.coordinates == [-31.8552, 116.0019])
        #expect(house.googleMapsLink?.absoluteString == "https://www.google.com/maps/place/The+House+of+Honey+WA")
        #expect(house.rating == 4.8 && house.seedRating == 4.8)
        #expect(house.displayedRating == 4.13 && house.communityRating == 4.13 && house.reviewCount == 4)
        let quiet = try #require(shops.first { $0.reviewCount == 0 })
        #expect(quiet.communityRating == nil && quiet.displayedRating == quiet.rating)
    }

    @Test func reviewsDecodeWithUUIDsAndDates() throws {
        let dir = try Contract.run("honey-shops")
        let reviews = try Contract.decode([Review].self, "honey-shops/reviews.json", in: dir, decoder: Contract.rfc3339)
        #expect(reviews.count == 18)
        #expect(reviews.allSatisfy { (0.5...5).contains($0.rating) && ($0.title?.count ?? 0) <= 80 })
        let house = reviews.filter { $0.shopID == "house-of-honey" }.map(\.createdAt)
        #expect(house.count == 4 && house == house.sorted(by: >), "newest first")
        let shops = try Contract.decode([ShopSeed].self, "honey-shops/shops.json", in: dir)
        #expect(
            Set(reviews.map(\.shopID)).isSubset(of: Set(shops.map(\.id))), "every review names a shop of the dataset")
    }
}
