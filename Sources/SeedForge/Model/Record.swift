import CSeedForgeSupport

/// One record of a collection: its values in schema order, and where it came from.
public struct Record: Sendable {
    public var values: [Value]
    /// Where the record came from. Internal: it points at its file without retaining it,
    /// which is safe while the run that read it is alive; findings carry resolved locations.
    internal var origin: Origin

    public init(values: [Value], origin: Origin) {
        self.values = values
        self.origin = origin
    }

    public subscript(field: FieldID) -> Value {
        get { field.index < values.count ? values[field.index] : .null }
        set {
            if field.index >= values.count {
                values.append(contentsOf: repeatElement(.null, count: field.index - values.count + 1))
            }
            values[field.index] = newValue
        }
    }
}

extension Record {
    /// How many records ahead of the one being rendered `prefetchValues` reaches.
    static let prefetchDistance = 8

    /// Asks the processor to bring the values of `records[index]` (when there is such a
    /// record), up to the field at `width - 1`, into its caches. Records in their final
    /// (sorted) order have their value arrays all over the heap, and rendering them one
    /// after another waited on memory at every record: in a profile of the 1M reference job
    /// three quarters of the renderer's own samples were on reading a record's value count.
    /// The array's address is read from the record's memory as a plain pointer, without
    /// copying the array (a copy would retain it, touching the very line being fetched). A
    /// hint only: a wrong address costs time, never a result.
    @inline(__always)
    static func prefetchValues(of records: UnsafeBufferPointer<Record>, at index: Int, width: Int) {
        guard index < records.count, let base = records.baseAddress,
            MemoryLayout<[Value]>.size == MemoryLayout<UnsafeRawPointer>.size,
            let offset = MemoryLayout<Record>.offset(of: \.values)
        else { return }
        let storage = UnsafeRawPointer(base + index).load(fromByteOffset: offset, as: UnsafeRawPointer.self)
        // The array's header (32 bytes: its object header, count and capacity), then the values.
        seedforge_prefetch(storage, 32 + width * MemoryLayout<Value>.stride)
    }
}

/// Provenance of a record: the source file, the record's position in it and its index.
/// Line and column are computed from the byte offset only when a message needs them.
public struct Origin: Sendable {
    /// Not retained: copying a record must not touch a reference count shared by every
    /// record of the file (from several cores that is a hot spot). Whoever holds records
    /// keeps their sources alive: `RunState.sources` during a run.
    public unowned(unsafe) let source: SourceText
    /// Byte offset of the record's first byte in the source file.
    public let offset: Int
    /// Zero-based position of the record in its source (array index, or record number
    /// of an NDJSON file).
    public internal(set) var index: Int

    /// For a record made from an element of another record's array (`unnest`): the byte
    /// offset of the record it came from, as read from its source; -1 for a source's own
    /// records. The element's pointer is that record's, then the path down to the element.
    public let parentOffset: Int

    public init(source: SourceText, offset: Int, index: Int) {
        self.source = source
        self.offset = offset
        self.index = index
        parentOffset = -1
    }

    /// An origin as it was written down (records read back from disk).
    init(source: SourceText, offset: Int, index: Int, parentOffset: Int) {
        self.source = source
        self.offset = offset
        self.index = index
        self.parentOffset = parentOffset
    }

    /// The origin of an element at `offset` inside the record of `parent`.
    public init(element offset: Int, of parent: Origin) {
        source = parent.source
        self.offset = offset
        index = parent.index
        parentOffset = parent.parentOffset >= 0 ? parent.parentOffset : parent.offset
    }

    /// Where `field` sits in this record's source: the path its own source declares for a
    /// field of that name (records appended from another source keep their own paths),
    /// nil for a computed field, and nil when the record's collection is not one that
    /// `field` is read from (a field computed after an append, named like one the appended
    /// source dropped).
    public func sourcePath(of field: FieldSpec) -> FieldPath? {
        guard let paths = source.fieldPaths, parentOffset < 0 else { return field.sourcePath }
        if let collection = source.collection, !field.declaredBy.contains(collection) { return nil }
        return paths[field.name]
    }
}

/// A place in a source file, as shown to users: `file:line:column` and a JSON Pointer.
public struct Location: Sendable, Hashable {
    public var file: String
    public var line: Int
    public var column: Int
    public var pointer: String
    /// The file's number in its run (`InputFiles`), -1 for a file the run did not keep (one
    /// that could not be read), and for a finding of an HTML page read on another thread
    /// until the run keeps the page (`ExtractedPage.placeFindings(inFile:)` fills it in):
    /// side outputs name the file by the path the run's table gives, not by the path shown
    /// here.
    public var fileNumber: Int

    public init(file: String, line: Int, column: Int, pointer: String, fileNumber: Int = -1) {
        self.file = file
        self.line = line
        self.column = column
        self.pointer = pointer
        self.fileNumber = fileNumber
    }

    public var description: String { "\(file):\(line):\(column)" }

    /// `name.json:line:column`: for messages that mention another record, without a path
    /// that would depend on the working folder.
    public var brief: String { "\(file.split(separator: "/").last.map(String.init) ?? file):\(line):\(column)" }
}
