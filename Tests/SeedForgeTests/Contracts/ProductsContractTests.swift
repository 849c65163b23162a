import Foundation
import Testing

/// The product search app (`seeds/002`) shows a product's image, name and price in a
/// grid; prices are exact decimals, so the model reads them as `Decimal`.
@Suite("Contracts: product search app")
struct ProductsContractTests {
    struct Product: Codable {
        let name: String
        let url: URL
        let price: Decimal
        let currency: String
        let rating: Int?
        let picture: URL?
        let availability: String?
    }

    @Test func productsDecodeAsTheAppsModel() throws {
        let dir = try Contract.run("products")
        let products = try Contract.decode([Product].self, "products/products.json", in: dir)
        #expect(products.count == 7)
        #expect(products.allSatisfy { $0.currency.count == 3 && $0.price > 0 && $0.url.scheme == "https" })
        let acacia = try #require(products.first)
        #expect(acacia.name == "Acacia Honey, Light and Mild, 1 kg")
        #expect(acacia.price == Decimal(string: "18.4") && acacia.currency == "GBP" && acacia.rating == 4)
        #expect(acacia.picture?.absoluteString == "https://honey-market.example.com/media/acacia-honey-1kg.jpg")
    }
}
