/// Where a record and its values are in its file, for findings and for values as the
/// source wrote them. A file whose source kind set a `RecordLayout` (delimited text, HTML)
/// answers through it; any other is JSON or NDJSON, read back here with the JSON reader,
/// with JSON Pointers. Line and column are computed only when a message needs them.
extension Origin {
    /// JSON Pointer of the record inside the file (`/3`, `/results/3`); empty for the
    /// records of line-based files, whose pointers are relative to their line.
    public var pointer: String {
        var within = ""
        if parentOffset >= 0 {
            within = source.bytes.withUnsafeBufferPointer { buffer in
                var reader = JSONReader(bytes: buffer, start: parentOffset)
                return FieldPath.pointer(reader.path(to: offset) ?? [])
            }
        }
        guard let prefix = source.recordsPointer else { return within }
        if let keys = source.recordKeys, index < keys.count {
            return prefix + FieldPath.pointer([.key(keys[index])]) + within
        }
        return "\(prefix)/\(index)" + within
    }

    /// The location of the record itself.
    public var location: Location {
        if let layout = source.layout { return layout.location(of: self) }
        return source.location(ofOffset: offset, pointer: pointer)
    }

    /// The value at `path` as it was written in the source, before any step changed it;
    /// nil when the source record has nothing there.
    public func sourceValue(at path: FieldPath) -> Value? {
        if let layout = source.layout { return layout.sourceValue(at: path, in: self) }
        guard let offset = source.offset(of: path, inValueAt: offset) else { return nil }
        return source.bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer, start: offset)
            return try? reader.readValue()
        }
    }

    /// The location of a field of the record in its source (see `sourcePath(of:)`).
    public func location(ofField field: FieldSpec) -> Location { location(of: sourcePath(of: field)) }

    /// The location of a value inside the record, found by re-reading the record's JSON;
    /// falls back to the record's own location when the value is absent.
    public func location(of path: FieldPath?) -> Location {
        if let layout = source.layout { return layout.location(of: path, in: self) }
        guard let path, let offset = source.offset(of: path, inValueAt: offset) else {
            var location = self.location
            if let path { location.pointer = pointer + path.description }
            return location
        }
        return source.location(ofOffset: offset, pointer: pointer + path.description)
    }
}

extension SourceText {
    /// The byte offset of the value at `path` inside the JSON value at `offset`.
    public func offset(of path: FieldPath, inValueAt offset: Int) -> Int? {
        bytes.noteScatteredRead()
        return bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer, start: offset)
            return reader.locate(path)
        }
    }
}
