import Foundation
import Testing

@testable import SeedForge

/// Issue 18: definitions that `lint` passed but that reject every record at run time are
/// definition errors naming the YAML line; `stable-id` may add the id field it fills.
@Suite("Lint: what run would reject is a definition error")
struct LintRefusesWhatRunRejectsTests {
    @Test func aWildcardInARecordsPointerIsRefused() {
        let errors = Harness.definitionErrors(
            """
            name: t
            sources:
              cities:
                kind: json
                path: data.json
                records: /*/ratings
                fields: {rating: number}
            outputs:
              - {file: cities.json, collection: cities}
            """, files: ["data.json": #"{"lisbon": {"ratings": [{"rating": 4}]}}"#])
        #expect(errors.count == 1)
        #expect(errors.first?.line == 6)
        #expect(errors.first?.message.contains("'records': '*' in /*/ratings is not a wildcard") == true, "\(errors)")
    }

    @Test func aWildcardInAFieldPointerIsRefused() {
        let errors = Harness.definitionErrors(
            """
            name: t
            sources:
              shops:
                kind: json
                path: data.json
                fields: {lat: {type: number, from: /coordinates/*}}
            outputs:
              - {file: shops.json, collection: shops}
            """)
        #expect(errors.first?.line == 6)
        #expect(
            errors.first?.message.contains("'from' of field 'lat': '*' in /coordinates/* is not a wildcard") == true,
            "\(errors)")
    }

    static func html(_ field: String) -> String {
        """
        name: t
        sources:
          products:
            kind: html
            path: page.html
            items: article
            fields:
              name: {select: h3}
        \(field)
        outputs:
          - {file: products.json, collection: products}
        """
    }

    @Test func anHTMLFieldTypeNothingOnThePageCanHaveIsRefused() {
        let files = ["page.html": "<article><h3>Clover honey</h3><p class=price>£5.00</p></article>"]
        let text = Harness.definitionErrors(Self.html("      tags: {select: p, type: array}"), files: files)
        #expect(text.first?.line == 9)
        #expect(
            text.first?.message
                == "field 'tags' cannot be of type array: it takes text from the page, so every record would be rejected; use type string (the default) or any",
            "\(text)")
        let price = Harness.definitionErrors(
            Self.html("      price: {select: p.price, convert: price-amount, type: boolean}"), files: files)
        #expect(price.first?.message.contains("convert: price-amount gives number values") == true, "\(price)")
        let mapped = Harness.definitionErrors(
            Self.html("      stars: {select: p, take: class, map: {One: 1, Two: 2}, type: string}"), files: files)
        #expect(mapped.first?.message.contains("its map gives number values") == true, "\(mapped)")
        // What fits stays allowed.
        #expect(
            Harness.definitionErrors(
                Self.html("      price: {select: p.price, convert: price-amount, type: number}"), files: files
            ).isEmpty)
        #expect(Harness.definitionErrors(Self.html("      tags: {select: p, type: any}"), files: files).isEmpty)
    }

    @Test func stableIDAddsTheIDFieldWhenTheSourceHasNone() throws {
        let result = try Harness.run(
            """
            name: t
            sources:
              shops: {kind: json, path: shops.json, fields: {name: string, address: string}}
            steps:
              - normalize: stable-id
                collection: shops
                field: id
                from: [name, address]
                prefix: shop-
            outputs:
              - {file: shops.json, collection: shops}
            """,
            files: [
                "shops.json":
                    #"[{"name":"Montana Honey Bee Company","address":"19 S Tracy Ave, Bozeman, MT 59715, USA"}]"#
            ])
        // The id the README documents for this shop.
        #expect(result.records("shops").first?["id"] == .string("shop-6862d7ec5a78e77d"))
    }

    /// Through the real CLI: `lint` exits 2 with file:line:column.
    @Test func lintRefusesThemWithTheYAMLLine() throws {
        let dir = try TempDir()
        try dir.write("data.json", #"{"lisbon": {"ratings": [{"rating": 4}]}}"#)
        try dir.write(
            "p.yml",
            """
            name: t
            sources:
              cities: {kind: json, path: data.json, records: /*/ratings, fields: {rating: number}}
            outputs:
              - {file: cities.json, collection: cities}
            """)
        let result = try CLI.run(["lint", "p.yml"], cwd: dir.path)
        #expect(result.status == 2)
        #expect(result.stderr.contains("p.yml:3:"), "\(result.stderr)")
        #expect(result.stderr.contains("is not a wildcard"), "\(result.stderr)")
    }
}
