import CSeedForgeSupport

/// One record of a collection: its values in schema order (packed: `PackedRow`), and
/// where it came from. Sendable as a value: a row is changed in place only while this
/// record is the one holding it (`isKnownUniquelyReferenced`), so records shared between
/// threads are only read. (`ManagedBuffer`, which a row is, is not declared Sendable.)
public struct Record: @unchecked Sendable {
    /// The values, packed. A record is a value: setting a field of a record that shares
    /// its row with a copy gives it a row of its own first.
    var row: PackedRow
    /// Where the record came from. Internal: it points at its file without retaining it,
    /// which is safe while the run that read it is alive; findings carry resolved locations.
    internal var origin: Origin

    public init(values: [Value], origin: Origin) {
        row = PackedRow.make(values, width: values.count)
        self.origin = origin
    }

    /// A record of `values` with room for `width` values in all (the fields later steps
    /// add), so that adding one does not reallocate the row.
    init(values: [Value], width: Int, origin: Origin) {
        row = PackedRow.make(values, width: width)
        self.origin = origin
    }

    init(row: PackedRow, origin: Origin) {
        self.row = row
        self.origin = origin
    }

    /// The values, made (a copy: for code that needs them all as `Value`s; steps read one
    /// field at a time through the subscript).
    public var values: [Value] {
        get { row.values() }
        set { row = PackedRow.make(newValue, width: newValue.count) }
    }

    public subscript(field: FieldID) -> Value {
        @inline(__always) get { row.value(at: field.index) }
        set {
            if isKnownUniquelyReferenced(&row), row.replace(at: field.index, with: newValue) { return }
            row = row.copy(setting: field.index, to: newValue)
        }
    }
}

extension Record {
    /// Sets `field` to the string whose UTF-8 is `utf8` (which must not lie in this
    /// record's row): in place as the subscript's setter, without making a `String`
    /// unless the row must be copied.
    mutating func setText(_ field: FieldID, _ utf8: UnsafeBufferPointer<UInt8>) {
        if isKnownUniquelyReferenced(&row), row.replaceText(at: field.index, with: utf8) { return }
        row = row.copy(setting: field.index, to: .string(String(decoding: utf8, as: UTF8.self)))
    }

    /// Calls `body` with the row of `record`, borrowed from it (no retain and release of it:
    /// a local `unowned(unsafe)` copy of `record.row` was still retained and released around
    /// each call on it). `body` must not keep the row.
    @inline(__always)
    static func withRow<R>(of record: Record, _ body: (PackedRow) -> R) -> R {
        withUnsafePointer(to: record) { withRow(of: UnsafeBufferPointer(start: $0, count: 1), at: 0, body) }
    }

    /// Calls `body` with the row of `records[index]`, borrowed from the buffer: no retain
    /// and release of it, which reading `records[index].row` into a local costs even when
    /// the local is `unowned(unsafe)` (in a profile of the 1M reference job the renderer
    /// did that once a record). The buffer's record keeps the row alive.
    @inline(__always)
    static func withRow<R>(of records: UnsafeBufferPointer<Record>, at index: Int, _ body: (PackedRow) -> R) -> R {
        Unmanaged<PackedRow>.fromOpaque(rowAddress(in: records.baseAddress!, at: index))._withUnsafeGuaranteedRef(body)
    }

    /// The address of the row of the record at `index` of `base`, read as a plain pointer
    /// from the record's memory (no retain).
    @inline(__always)
    private static func rowAddress(in base: UnsafePointer<Record>, at index: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(base + index).load(
            fromByteOffset: MemoryLayout<Record>.offset(of: \.row)!, as: UnsafeRawPointer.self)
    }

    /// How many records ahead of the one being rendered `prefetchValues` reaches.
    static let prefetchDistance = 8

    /// Asks the processor to bring the row of `records[index]` (when there is such a
    /// record) into its caches. Records in their final (sorted) order have their rows all
    /// over the heap, and rendering them one after another waited on memory at every
    /// record: in a profile of the 1M reference job three quarters of the renderer's own
    /// samples were on reading a record's first value. The row's address is read from the
    /// record's memory as a plain pointer, without retaining it (a retain would touch the
    /// very line being fetched). A hint only: a wrong address costs time, never a result.
    @inline(__always)
    /// The `width` to give `prefetchValues` for a reader of the fields `ids`: one past the
    /// highest of them (0 for none).
    static func prefetchWidth(_ ids: [FieldID]) -> Int { (ids.map(\.index).max() ?? -1) + 1 }

    static func prefetchValues(of records: UnsafeBufferPointer<Record>, at index: Int, width: Int) {
        guard index < records.count, let base = records.baseAddress else { return }
        // The object's header (32 bytes), the tags and words, and some of the text.
        seedforge_prefetch(rowAddress(in: base, at: index), 32 + 9 * width + 32)
    }

    /// Asks for the rows of `records[range]` (the slice's own indices, clamped to it) as
    /// `prefetchValues(of:at:width:)` does: for a renderer that takes records in slices too
    /// short for its own look-ahead (pages of ten), the next slice's rows are fetched while
    /// it renders the current one.
    static func prefetchValues(of records: ArraySlice<Record>, in range: Range<Int>, width: Int) {
        let range = range.clamped(to: records.indices)
        guard !range.isEmpty else { return }
        records.withUnsafeBufferPointer { buffer in
            let start = range.lowerBound - records.startIndex
            for index in start..<(start + range.count) { prefetchValues(of: buffer, at: index, width: width) }
        }
    }
}

/// Provenance of a record: the source file, the record's position in it and its index.
/// Line and column are computed from the byte offset only when a message needs them.
public struct Origin: Sendable {
    /// Not retained: copying a record must not touch a reference count shared by every
    /// record of the file (from several cores that is a hot spot). Whoever holds records
    /// keeps their sources alive: `RunState.sources` during a run.
    public unowned(unsafe) let source: SourceText
    /// The byte offset (its low 48 bits) and the index's low 16 bits, and the parent's
    /// offset + 1 (low 48 bits, 0 for none) and the index's high 16 bits: three `Int`s
    /// took 24 bytes, these 16, so a `Record` is 32 bytes instead of 40 (at 1M cities 8 MB
    /// less in the records array, which every step holds).
    private var offsetWord: UInt64
    private var parentWord: UInt64

    private static let low48: UInt64 = (1 << 48) - 1

    /// How many records one source file may hold: an index is kept in 32 bits. Ingest
    /// refuses a file past it with an error naming the file (`IngestSink.merge`).
    public static let indexLimit = Int(UInt32.max) + 1

    /// Byte offset of the record's first byte in the source file.
    public var offset: Int { Int(offsetWord & Self.low48) }

    /// Zero-based position of the record in its source (array index, or record number
    /// of an NDJSON file), below 2^32.
    public internal(set) var index: Int {
        get { Int(offsetWord >> 48) | Int(parentWord >> 48) << 16 }
        set {
            precondition(newValue >= 0 && newValue <= Int(UInt32.max), "a record index past 2^32 in one source")
            offsetWord = offsetWord & Self.low48 | UInt64(newValue & 0xFFFF) << 48
            parentWord = parentWord & Self.low48 | UInt64(newValue >> 16) << 48
        }
    }

    /// For a record made from an element of another record's array (`unnest`): the byte
    /// offset of the record it came from, as read from its source; -1 for a source's own
    /// records. The element's pointer is that record's, then the path down to the element.
    public var parentOffset: Int { Int(parentWord & Self.low48) - 1 }

    public init(source: SourceText, offset: Int, index: Int) {
        self.init(source: source, offset: offset, index: index, parentOffset: -1)
    }

    /// An origin as it was written down (records read back from disk).
    init(source: SourceText, offset: Int, index: Int, parentOffset: Int) {
        precondition(offset >= 0 && offset < 1 << 48, "a byte offset past 2^48")
        precondition(parentOffset >= -1 && parentOffset < (1 << 48) - 1, "a parent byte offset past 2^48")
        self.source = source
        offsetWord = UInt64(offset)
        parentWord = UInt64(parentOffset + 1)
        self.index = index
    }

    /// The origin of an element at `offset` inside the record of `parent`.
    public init(element offset: Int, of parent: Origin) {
        self.init(
            source: parent.source, offset: offset, index: parent.index,
            parentOffset: parent.parentOffset >= 0 ? parent.parentOffset : parent.offset)
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
