/// How a source kind whose files are not JSON finds a record's parts again in its file:
/// a delimited text row's cells (`CSVLayout`), an HTML page's items (`HTMLLayout`). The
/// kind sets it on each file it reads (`SourceText.layout`); a file without one is JSON
/// or NDJSON, read back by the JSON reader (`JSON/RecordLocations.swift`). Model keeps
/// only this promise, so it needs neither the JSON reader nor a source kind.
public protocol RecordLayout: Sendable {
    /// The location of the record itself.
    func location(of origin: Origin) -> Location
    /// The location of the value at `path` in the record; nil path: the record's.
    func location(of path: FieldPath?, in origin: Origin) -> Location
    /// The value at `path` as the source wrote it; nil when the record has nothing there.
    func sourceValue(at path: FieldPath, in origin: Origin) -> Value?
}
