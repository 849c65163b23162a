import FuzzSupport
import SeedForge

/// The JSON reader: a whole value, then the paged cities source (records under
/// /results, page numbers, typed fields from pointers) and the keyed GeoNames source.
@main enum JSONFuzz {
    static func main() {
        let paged = SourceUnderFuzz(pipeline: "pipelines/cities.yml", collection: "cities")
        let keyed = SourceUnderFuzz(pipeline: "Fixtures/geonames/geonames.yml", collection: "keyedCities")
        FuzzMain.run { bytes in
            var reader = JSONReader(bytes: bytes, maxDepth: 64)
            reader.skipByteOrderMark()
            reader.skipWhitespace()
            _ = try? reader.readValue()
            paged.read(bytes)
            keyed.read(bytes)
        }
    }
}
