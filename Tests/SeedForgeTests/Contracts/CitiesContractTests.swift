import Foundation
import Testing

@testable import SeedForge

/// The city map app (`seeds/003`) decodes the challenge's city:
/// `{"country":"UA","name":"Hurzuf","_id":707860,"coord":{"lon":34.28,"lat":44.55}}`,
/// from the whole list and from the pages it scrolls through.
@Suite("Contracts: city map app")
struct CitiesContractTests {
    struct City: Codable, Identifiable, Equatable {
        let country: String
        let name: String
        let id: Int
        let coord: Coordinate

        struct Coordinate: Codable, Equatable {
            let lon: Double
            let lat: Double
        }

        enum CodingKeys: String, CodingKey {
            case country, name
            case id = "_id"
            case coord
        }
    }

    @Test func citiesAndPagesDecodeAsTheChallengesCity() throws {
        let dir = try Contract.run("cities")
        let cities = try Contract.decode([City].self, "cities/cities.json", in: dir)
        #expect(cities.count == 24)
        #expect(Set(cities.map(\.id)).count == cities.count, "no city twice")
        let hurzuf = try #require(cities.first { $0.id == 707860 })
        #expect(hurzuf.name == "Hurzuf" && hurzuf.country == "UA")
        #expect(hurzuf.coord == City.Coordinate(lon: 34.283333, lat: 44.549999))
        #expect(cities.first?.name == "Alabama")
        // The pages hold the same cities, in the same order.
        var paged: [City] = []
        for page in 1...3 { paged += try Contract.decode([City].self, "cities/pages/\(page).json", in: dir) }
        #expect(paged == cities)
    }

    @Test func theAppsSearchExampleWorksOnTheDataset() throws {
        let dir = try Contract.run("cities")
        let query = try PrefixQuery(folder: dir.path + "/cities")
        let json = JSONDecoder()
        func search(_ prefix: String) throws -> [City] {
            try query.search(prefix, limit: 10).map {
                try json.decode(City.self, from: Data(JSONWriter.compact($0.record).utf8))
            }
        }
        #expect(try search("al").map { "\($0.name), \($0.country)" } == ["Alabama, US", "Albuquerque, US"])
        #expect(try search("alb").first?.id == 5_454_711)
    }
}
