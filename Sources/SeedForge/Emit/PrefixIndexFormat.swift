import Foundation

/// `format: prefix-index`: lets a reader find every record whose key starts with a prefix
/// without scanning the dataset. The folder holds:
///
/// - `keys.tsv`: one line per record, in dataset order, `KEY<TAB>POSITION` (POSITION is the
///   0-based place in the dataset). A record whose key is null is listed with the single
///   byte 0xFF as its key, which sorts after every UTF-8 key (as nulls sort last in the
///   dataset) and matches only the empty prefix. The collection must be sorted by the key
///   in byte order (`aggregate: sort` with `collation: exact` on the key, first), so the
///   file is sorted too and a reader finds the first and last line with a prefix by
///   binary search over byte offsets. Keys may not contain tabs or line breaks
///   (`normalize: search-key` never makes such keys).
/// - `meta.json`: the key field, the record count, the folder and size of the pages that
///   hold the records (POSITION / size + 1 is the page, POSITION % size the place in it), and
///   the fields a text listing shows.
///
/// `seedforge query` reads exactly these files.
public struct PrefixIndexFormat: OutputFormat {
    public static let spec = KindSpec(
        stage: .emit, name: "prefix-index",
        summary:
            "Sorted keys (keys.tsv) and meta.json, for prefix search by binary search; records come from a pages output.",
        keys: OutputKeys.common + [
            KeySpec(
                "key", required: true,
                "the folded key field the collection is sorted by (see normalize: search-key), or a list of key fields (a record is found by any of them, e.g. name or city)"
            ),
            KeySpec(
                "pages", required: true, "the 'file' of the pages output of the same collection that holds the records"),
            KeySpec(
                "display",
                "fields a text listing shows, joined by ', ' (default: the key); meta.json names where the pages' records hold them (a key, or a JSON Pointer when the pages output writes the field at one)"
            ),
        ],
        details: #"""
            A folder: `keys.tsv` (one `KEY<TAB>POSITION` line per record, in dataset order, which must
            be byte order of the key: `lint` checks that the last `sort` of the collection starts with
            `{field: KEY, collation: exact}`, and a run whose keys are still out of order, or contain
            a tab or line break, fails with exit 1) and `meta.json` (`key`, `records`, `pages`,
            `pageSize`, `display`: per display field its key in the pages' records, or a JSON Pointer
            starting with `/` when the pages output writes it at one; and `fold` when the key's
            `search-key` drops apostrophes or spaces punctuation). A record whose key is null is
            listed with the single byte 0xFF as its key: it sorts last, as in the dataset, and matches
            only the empty prefix.

            To find a prefix, binary-search `keys.tsv` by byte offset for the first line not below the
            folded prefix and the first line not below the prefix followed by byte 0xFF (which no
            UTF-8 key contains); the positions on those lines bound the matches. Record `POSITION` is
            in page `POSITION / pageSize + 1` at index `POSITION % pageSize`. With several keys,
            `keys.tsv` lists every (key, position) pair sorted by key then position (null keys left
            out) and `meta.json` says `"sorted": false`: the matches of a prefix are the positions on
            the lines between the two bounds, read in dataset order, each once.
            """#,
        example: """
            - file: prefix-index
              format: prefix-index
              collection: cities
              key: searchKey
              pages: pages
              display: [name, country]
            """)
    public static let extensions: [String] = []

    let keys: [FieldID]
    let keyNames: [String]
    let pages: String
    let display: [FieldID]
    let schema: Schema
    /// The folding of the key fields' search-key step, recorded for queries.
    let folding: KeyFolding
    /// One key, and the collection sorted by it: positions in keys.tsv run in dataset order.
    var sortedByKey: Bool { keys.count == 1 }
    var key: FieldID { keys[0] }
    var keyName: String { keyNames[0] }

    /// `keys.tsv` and `meta.json`.
    public func files(records: Int) -> Int { 2 }

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        keys = try plan.fields(config, key: "key", in: collection)
        keyNames = keys.map { plan.schema(collection)[$0].name }
        pages = try config.requiredString("pages")
        display = try config["display"] == nil ? [keys[0]] : plan.fields(config, key: "display", in: collection)
        schema = plan.schema(collection)
        let foldings = keys.map { plan.keyFoldings[PipelinePlan.fieldKey(collection, $0)] ?? .none }
        guard Set(foldings.map { "\($0.apostrophes)\($0.punctuation)" }).count == 1 else {
            throw config["key"]!.error(
                "the keys of a prefix-index must be folded alike (search-key apostrophes and punctuation), so a query folds a prefix one way"
            )
        }
        folding = foldings[0]
        guard
            keys.count > 1
                || {
                    guard let sorted = plan.sortedBy[collection] else { return false }
                    return sorted.field == keys[0] && sorted.exact && !sorted.descending
                }()
        else {
            throw config.error(
                """
                prefix-index needs '\(collection)' sorted by '\(keyNames[0])' in byte order first: add a step \
                `- aggregate: sort` with `by: [{field: \(keyNames[0]), collation: exact}, ...]` before the outputs
                """)
        }
    }

    /// The `pages` output this index reads records from, checked once all outputs are known.
    func pagesOutput(in outputs: [OutputDefinition], collection: CollectionID) -> String? {
        guard let match = outputs.first(where: { $0.file == pages }) else {
            return
                "prefix-index names pages '\(pages)', but no output has that file\(Suggestion.phrase(for: pages, in: outputs.map(\.file)))"
        }
        guard match.format is PagesFormat, match.collection == collection else {
            return "prefix-index's pages '\(pages)' must be a pages output of collection '\(collection)'"
        }
        if let missing = display.first(where: { match.place(of: $0, schema: schema) == nil }) {
            return
                "prefix-index displays '\(schema[missing].name)', but its pages '\(pages)' do not write that field; add it to the pages output's 'fields'"
        }
        return nil
    }

    /// Where the pages' records hold each `display` field: its key, or a JSON Pointer.
    func displayPlaces(pages: OutputDefinition?) -> [String] {
        display.map { pages?.place(of: $0, schema: schema) ?? schema[$0].name }
    }

    public func write(_ records: OutputRecords, fields: [FieldSpec], ids: [FieldID], into out: OutputWriter) throws {
        let bytes = sortedByKey ? try keysInDatasetOrder(records) : try keysSorted(records)
        try out.write(bytes, to: "keys.tsv")
        let pagesOutput = out.outputs.first { $0.file == pages }
        let pageSize = (pagesOutput?.format as? PagesFormat)?.size ?? 0
        var object = JSONObject([
            ("format", .string("seedforge prefix index 1")), ("key", .string(keyNames.joined(separator: ","))),
            ("keys", .array(keyNames.map(Value.string))), ("sorted", .bool(sortedByKey)),
            ("records", .int(Int64(records.count))),
            ("pages", .string(Self.relative(from: out.file, to: pages))), ("pageSize", .int(Int64(pageSize))),
            ("display", .array(displayPlaces(pages: pagesOutput).map(Value.string))),
        ])
        // Only when the keys fold more than the collation: older indexes stay as they were.
        if let fold = folding.meta { object.appendUnchecked("fold", fold) }
        let meta = Value.object(object)
        var writer = JSONWriter()
        writer.writePretty(meta)
        writer.append(byte: 0x0A)
        try out.write(writer.bytes, to: "meta.json")
    }

    static func keyBytes(_ value: Value, _ name: String, _ position: Int) throws -> [UInt8]? {
        switch value {
        case .null: return nil
        case .string(let text):
            let bytes = Array(text.utf8)
            if bytes.contains(where: { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
                throw DataFailure(
                    "prefix-index: \(name) of record \(position) contains a tab or a line break; build the key with normalize: search-key"
                )
            }
            return bytes
        case let other:
            throw DataFailure("prefix-index: \(name) of record \(position) is \(other.typeName), not text")
        }
    }

    /// Several keys: every (key, position) pair, sorted by key then position; null keys are
    /// left out (the empty prefix lists every record anyway).
    func keysSorted(_ records: OutputRecords) throws -> [UInt8] {
        var pairs: [(key: [UInt8], position: Int)] = []
        try records.forEach(width: Record.prefetchWidth(keys)) { position, record in
            var seen: [[UInt8]] = []
            for (key, name) in zip(keys, keyNames) {
                guard let bytes = try Self.keyBytes(record[key], name, position), !seen.contains(bytes) else {
                    continue
                }
                seen.append(bytes)
                pairs.append((bytes, position))
            }
        }

        pairs.sort { $0.key == $1.key ? $0.position < $1.position : $0.key.lexicographicallyPrecedes($1.key) }
        var out: [UInt8] = []
        for pair in pairs {
            out += pair.key
            out.append(0x09)
            out += Array(String(pair.position).utf8)
            out.append(0x0A)
        }
        return out
    }

    /// One key: the lines in dataset order, each key's bytes written straight into the file's
    /// bytes (no array per key or per position) and checked against the previous key there.
    func keysInDatasetOrder(_ records: OutputRecords) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.count * 24)
        // Where the previous line's key is in `bytes`.
        var previous = 0..<0
        try records.forEach(width: key.index + 1) { position, record in
            let start = bytes.count
            try Self.appendKey(record[key], keyName, position, to: &bytes)
            let current = start..<bytes.count
            guard !Self.precedes(current, previous, in: bytes) else {
                throw DataFailure(
                    """
                    prefix-index: records are not in byte order of \(keyName) at position \(position); \
                    sort by {field: \(keyName), collation: exact} after every step that changes \(keyName)
                    """)
            }
            previous = current
            bytes.append(0x09)
            Self.appendDecimal(position, to: &bytes)
            bytes.append(0x0A)
        }
        return bytes
    }

    /// Appends the key's bytes as `keyBytes` gives them (0xFF, after every text, for null).
    static func appendKey(_ value: Value, _ name: String, _ position: Int, to bytes: inout [UInt8]) throws {
        guard case .string(var text) = value else {
            bytes += try keyBytes(value, name, position) ?? [0xFF]
            return
        }
        let clean = text.withUTF8 { utf8 in
            bytes.append(contentsOf: utf8)
            return !utf8.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        }
        // Not clean: `keyBytes` throws the error.
        if !clean { _ = try keyBytes(value, name, position) }
    }

    /// Whether the bytes at `first` come before those at `second` in byte order.
    static func precedes(_ first: Range<Int>, _ second: Range<Int>, in bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            let common = min(first.count, second.count)
            let order =
                common == 0
                ? 0 : memcmp(buffer.baseAddress! + first.lowerBound, buffer.baseAddress! + second.lowerBound, common)
            return order < 0 || (order == 0 && first.count < second.count)
        }
    }

    /// Appends `number` (not negative) in decimal digits.
    static func appendDecimal(_ number: Int, to bytes: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        var rest = UInt(number)
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                count += 1
                buffer[buffer.count - count] = UInt8(0x30 + rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: buffer[(buffer.count - count)...])
        }
    }

    /// The pages folder as seen from the index folder (both inside the dataset folder).
    static func relative(from indexFolder: String, to pages: String) -> String {
        Paths.relative("/dataset/" + pages, to: "/dataset/" + indexFolder)
    }
}
