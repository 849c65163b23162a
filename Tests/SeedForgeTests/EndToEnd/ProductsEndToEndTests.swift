import Foundation
import Testing

/// The products pipeline on the saved catalogue, through the real binary.
@Suite("End to end: products")
struct ProductsEndToEndTests {
    @Test func theCatalogueBecomesProductsWithExactPrices() throws {
        let dir = try TempDir()
        let result = try CLI.run(["run", "pipelines/products.yml", "--out", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("products: wrote 7 products"))
        let json = try dir.read("products/products.json")
        // Exact decimals are written with their own digits, never through a float.
        #expect(json.contains(#""price": 1234.56"#))
        #expect(json.contains(#""price": 51.77"#))
        let products = try #require(jsonObject(Data(json.utf8)) as? [[String: Any]])
        #expect(
            products.map { $0["name"] as! String } == [
                "Acacia Honey, Light and Mild, 1 kg", "Bee Pollen Granules, 200 g",
                "Castanea: Dark Chestnut Honey, 350 g",
                "Hand-Dipped Beeswax Candles, Set of Six", "Mānuka Honey UMF 10+ from Northland, 250 g",
                "Miel de Lavande de Provence IGP, 400 g", "Wildflower Honey, Raw and Unfiltered, 500 g Jar",
            ])
        let manuka = try #require(products.first { ($0["name"] as? String)?.hasPrefix("Mānuka") == true })
        #expect(manuka["currency"] as? String == "USD")
        #expect(manuka["rating"] as? Int == 5)
        #expect(
            manuka["url"] as? String == "https://honey-market.example.com/catalogue/products/manuka-honey-umf-10.html")
        #expect(manuka["picture"] as? String == "https://honey-market.example.com/media/manuka-honey-umf-10.jpg")
        #expect(manuka["availability"] as? String == "In stock")
        let duplicates = try dir.read("products/duplicates.ndjson")
        #expect(
            duplicates.contains(
                #""winner":"https://honey-market.example.com/catalogue/products/wildflower-honey-500g.html""#))
        let rejects = try dir.read("products/rejects.ndjson").split(separator: "\n")
        #expect(rejects.count == 3)
        #expect(rejects[0].contains(#""pointer":"page 2, item 2, field price (p.price_color)""#))
        let manifest = try #require(jsonObject(try dir.bytes("products/manifest.json")) as? [String: Any])
        let inputs = try #require(manifest["inputs"] as? [[String: Any]])
        #expect(
            inputs.map { $0["file"] as? String } == (1...3).map { "../Fixtures/products/catalogue/page-\($0).html" })
    }
}
