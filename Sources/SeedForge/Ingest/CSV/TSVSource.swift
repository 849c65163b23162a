/// `kind: tsv`: tab-separated values, as GeoNames dumps and spreadsheet exports write
/// them: the `csv` reader with a tab between fields and, by default, no quoting (a quote
/// is an ordinary character, as in the IANA text/tab-separated-values format).
public struct TSVSource: SourceKind {
    public static let spec = KindSpec(
        stage: .ingest, name: "tsv",
        summary: "Tab-separated values: the csv reader with a tab between fields and no quoting by default.",
        keys: CSVSource.keys(delimiter: "a tab", quote: "none"),
        details: #"""
            As GeoNames dumps and spreadsheets write them: a quote is an ordinary character by
            default, as in `Kaka"ako`. Everything else is as for [`csv`](#ingest-source-kinds). A
            GeoNames dump has no header row: name the columns with `columns`, or take them by number
            (`from: /0`), as the example does.
            """#,
        example: """
            cities:
              kind: tsv
              path: ../Fixtures/geonames/cities500-excerpt.txt
              header: false
              id: id
              fields:
                id: {type: integer, from: /0}
                name: {type: string, from: /1}
                latitude: {type: number, from: /4}
                longitude: {type: number, from: /5}
                population: {type: integer, from: /14}
            """)

    let csv: CSVSource

    public init(config: ConfigMap) throws {
        csv = try CSVSource(config: config, delimiter: UInt8(ascii: "\t"), quote: nil)
    }

    public static func declaredFields(
        _ config: ConfigMap, what: String
    ) throws -> (fields: [FieldSpec], errors: [DefinitionError]) {
        try CSVSource.declaredFields(config, what: what)
    }

    public func read(_ text: SourceText, into sink: inout IngestSink) throws -> PageMetadata? {
        try csv.read(text, into: &sink)
    }

    public func document(holding records: [Value]) -> [UInt8] { csv.document(holding: records) }
}
