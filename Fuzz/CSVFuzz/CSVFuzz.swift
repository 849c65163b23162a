import FuzzSupport

/// The CSV reader: a spreadsheet export read by header (quotes, comments, typed fields) and
/// a GeoNames dump read by declared columns (tabs, quotes as ordinary characters).
@main enum CSVFuzz {
    static func main() {
        let csv = SourceUnderFuzz(pipeline: "Fixtures/geonames/geonames.yml", collection: "capitals")
        let tsv = SourceUnderFuzz(pipeline: "Fixtures/geonames/geonames.yml", collection: "cities")
        FuzzMain.run { bytes in
            csv.read(bytes)
            tsv.read(bytes)
        }
    }
}
