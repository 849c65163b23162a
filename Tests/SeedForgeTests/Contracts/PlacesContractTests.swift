import Foundation
import Testing

/// The adventure log (`seeds/001`): its Core Data `Place` (id, name, category, latitude,
/// longitude, address, isVisited, visitedDate, rating 1-5 when visited,
/// personalReflection, placeDescription) and `Trip` (tripDescription), as the app's own
/// export writes them, with what the pipeline adds (trip name, nearest city, statistics).
@Suite("Contracts: adventure log app")
struct PlacesContractTests {
    struct Place: Codable, Identifiable {
        enum Category: String, Codable {
            case beach = "Beach"
            case hike = "Hike"
            case activity = "Activity"
            case restaurant = "Restaurant"
            case placeOfWorship = "Place of Worship"
            case other = "Other"
        }

        /// A UUID for the app's places, the API's place_id for places found nearby.
        let id: String
        let name: String
        let category: Category
        let latitude: Double
        let longitude: Double
        let address: String?
        let placeDescription: String?
        let isVisited: Bool
        let visitedDate: String?
        let rating: Int?
        let personalReflection: String?
        let tripId: String?
        // Added by the pipeline.
        let tripName: String?
        let city: String?
        let country: String?
    }

    struct Trip: Codable, Identifiable {
        let id: UUID
        let name: String
        let tripDescription: String?
        let startDate: String
        let endDate: String
        let places: Int
        let visited: Int
        let meanRating: Double?
    }

    @Test func placesAndTripsDecodeAsTheAppsModels() throws {
        let dir = try Contract.run("places")
        let places = try Contract.decode([Place].self, "places/places.json", in: dir)
        #expect(places.count == 28)
        #expect(places.allSatisfy { $0.isVisited || ($0.rating == nil && $0.visitedDate == nil) })
        #expect(places.compactMap(\.rating).allSatisfy { (1...5).contains($0) })
        let bondi = try #require(places.first { $0.name == "Bondi Beach" })
        #expect(bondi.category == .beach && bondi.placeDescription == "Sydney’s best-known surf beach")
        #expect(bondi.tripName == "Summer in Sydney" && bondi.country == "AU")
        let trips = try Contract.decode([Trip].self, "places/trips.json", in: dir)
        #expect(trips.count == 7)
        let sydney = try #require(trips.first { $0.name == "Summer in Sydney" })
        #expect(sydney.tripDescription == "Christmas and New Year by the harbour")
        #expect(sydney.places == places.filter { $0.tripId == sydney.id.uuidString }.count)
    }
}
