/// Where the items of a saved HTML page are, for locations: an item is named by the
/// page's number and its place on the page, a field by its selector
/// (`page 2, item 4, field price (.price)`). Values are not read back from the page.
public struct HTMLLayout: RecordLayout {
    /// Each field's selector, by field name.
    public let selectors: [String: String]

    public init(selectors: [String: String]) { self.selectors = selectors }

    public func location(of origin: Origin) -> Location {
        origin.source.location(
            ofOffset: origin.offset, pointer: "page \(origin.source.pageNumber), item \(origin.index + 1)")
    }

    public func location(of path: FieldPath?, in origin: Origin) -> Location {
        var location = location(of: origin)
        if let path, case .key(let field)? = path.components.first {
            location.pointer += ", field \(field)" + (selectors[field].map { " (\($0))" } ?? "")
        }
        return location
    }

    public func sourceValue(at path: FieldPath, in origin: Origin) -> Value? { nil }
}
