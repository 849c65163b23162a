import Foundation
import Testing

@testable import SeedForge

/// Issue 18: `£54.00` is the exact decimal 54 in the dataset; an output with
/// `fixed-decimals: {price: 2}` writes it `54.00` for apps that show prices as text.
@Suite("End to end: fixed decimals of an output", .serialized)
struct FixedDecimalsEndToEndTests {
    @Test func aPriceListWritesTwoDecimalsWhileTheDatasetKeepsTheExactValue() throws {
        let dir = try TempDir()
        let fixtures = CLI.repoRoot.appendingPathComponent("Fixtures/products")
        try FileManager.default.copyItem(at: fixtures, to: dir.url.appendingPathComponent("Fixtures/products"))
        var yaml = try String(
            contentsOf: CLI.repoRoot.appendingPathComponent("pipelines/products.yml"), encoding: .utf8)
        yaml = yaml.replacingOccurrences(
            of: "\noutputs:\n",
            with: """

                outputs:
                  - file: price-list.csv
                    collection: products
                    fields: [name, price, currency]
                    fixed-decimals: {price: 2}
                  - file: price-list.json
                    collection: products
                    fields: [name, price]
                    fixed-decimals: {price: 2}

                """)
        try dir.write("pipelines/products.yml", yaml)
        let result = try CLI.run(["run", "pipelines/products.yml", "--out", "out"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        let csv = try dir.read("out/products/price-list.csv")
        for price in [",1299.00,USD", ",51.77,GBP", ",12.00,EUR", ",18.40,GBP", ",12.30,GBP", ",1234.56,EUR"] {
            #expect(csv.contains(price), "\(price) in \(csv)")
        }
        let json = try dir.read("out/products/price-list.json")
        #expect(json.contains("\"price\": 1299.00"), "\(json)")
        // The dataset itself keeps the documented exact value.
        let products = try dir.read("out/products/products.json")
        #expect(products.contains("\"price\": 1299\n") || products.contains("\"price\": 1299,"), "\(products)")
        #expect(!products.contains("1299.00"))
    }

    @Test func fixedTextPadsAndRounds() {
        // python3: Decimal('2.675').quantize(Decimal('0.01'), ROUND_HALF_UP) = 2.68
        #expect(ExactNumber(text: "2.675")?.fixedText(places: 2) == "2.68")
        #expect(ExactNumber(text: "54")?.fixedText(places: 2) == "54.00")
        #expect(ExactNumber(text: "0.5")?.fixedText(places: 3) == "0.500")
        #expect(ExactNumber(text: "-0.05")?.fixedText(places: 2) == "-0.05")
        #expect(ExactNumber(text: "7.5")?.fixedText(places: 0) == "8")
    }

    @Test func onlyDecimalFieldsTakeFixedDecimals() {
        let errors = Harness.definitionErrors(
            """
            name: t
            sources:
              items: {kind: json, path: data.json, fields: {name: string, rating: number}}
            outputs:
              - file: items.csv
                collection: items
                fixed-decimals: {rating: 2}
            """)
        #expect(errors.first?.line == 7)
        #expect(
            errors.first?.message
                == "'fixed-decimals' applies to decimal fields (exact amounts such as prices); 'rating' is number",
            "\(errors)")
    }
}
