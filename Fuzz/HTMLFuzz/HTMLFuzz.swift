import FuzzSupport

/// HTML field extraction: a page read with the fields of the shipped products pipeline
/// (items, selectors, attributes, classes, conversions, the next link) and of the quotes
/// pipeline (every match as a list, joined, saved-page names).
@main enum HTMLFuzz {
    static func main() {
        let products = SourceUnderFuzz(pipeline: "pipelines/products.yml", collection: "products")
        let quotes = SourceUnderFuzz(pipeline: "Fixtures/quotes/quotes.yml", collection: "quotes")
        FuzzMain.run { bytes in
            products.read(bytes)
            quotes.read(bytes)
        }
    }
}
