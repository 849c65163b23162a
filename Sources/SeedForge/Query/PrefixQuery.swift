import Foundation

/// Answers prefix searches from an emitted dataset folder alone, the way an app would:
/// finds the prefix index through `manifest.json`, binary-searches `keys.tsv` by byte
/// offset for the first key starting with the folded prefix, reads on while keys match,
/// and loads only the page files that hold the results. Nothing is scanned.
public final class PrefixQuery {
    public struct QueryError: ExitCoded, Sendable {
        public let message: String
        public var exitStatus: ExitStatus { .usage }
        public var description: String { "error: \(message)" }
    }

    public struct Match: Sendable {
        /// 0-based position in the dataset.
        public let position: Int
        public let record: Value
    }

    let folder: URL
    let keys: Data
    public let keyField: String
    public let display: [String]
    /// The key folding the index's meta.json records (search-key apostrophes/punctuation).
    public let folding: KeyFolding
    public let records: Int
    let pagesFolder: URL
    let pageSize: Int
    /// Whether keys.tsv lists records in dataset order (one key, sorted dataset); with
    /// several keys it lists (key, position) pairs sorted by key.
    let sortedByKey: Bool
    private var pageCache: [Int: [Value]] = [:]

    public init(folder path: String) throws {
        folder = URL(fileURLWithPath: path)
        let manifestURL = folder.appendingPathComponent("manifest.json")
        guard let manifestData = try? Data(contentsOf: manifestURL) else {
            throw QueryError(message: "\(path) is not a seedforge dataset folder (no manifest.json)")
        }
        let manifest = try Self.parse(manifestData, manifestURL.path)
        guard case .array(let outputs)? = manifest.value(at: FieldPath(components: [.key("outputs")])),
            let index = outputs.first(where: {
                $0.value(at: FieldPath(components: [.key("format")])) == .string("prefix-index")
            }),
            let indexFile = index.value(at: FieldPath(components: [.key("file")]))?.string
        else {
            throw QueryError(
                message:
                    "dataset \(path) has no prefix-index output; add one to its pipeline (see README, format prefix-index)"
            )
        }
        let indexFolder = folder.appendingPathComponent(indexFile)
        let metaURL = indexFolder.appendingPathComponent("meta.json")
        guard let metaData = try? Data(contentsOf: metaURL) else {
            throw QueryError(message: "the prefix index of \(path) is incomplete: \(metaURL.path) cannot be read")
        }
        let meta = try Self.parse(metaData, metaURL.path)
        func field(_ name: String) -> Value? { meta.value(at: FieldPath(components: [.key(name)])) }
        guard case .string(let key)? = field("key"), case .int(let count)? = field("records"), count >= 0,
            case .string(let pages)? = field("pages"), case .int(let size)? = field("pageSize"), size > 0,
            case .array(let display)? = field("display")
        else {
            throw QueryError(message: "\(metaURL.path) is not a prefix index this seedforge understands")
        }
        keyField = key
        records = Int(count)
        self.display = display.compactMap(\.string)
        pagesFolder = indexFolder.appendingPathComponent(pages).standardizedFileURL
        pageSize = Int(size)
        if case .bool(let sorted)? = field("sorted") { sortedByKey = sorted } else { sortedByKey = true }
        folding = KeyFolding(meta: field("fold")) ?? .none
        let keysURL = indexFolder.appendingPathComponent("keys.tsv")
        guard let keys = try? Data(contentsOf: keysURL, options: .alwaysMapped) else {
            throw QueryError(message: "the prefix index of \(path) is incomplete: \(keysURL.path) cannot be read")
        }
        self.keys = keys
        if sortedByKey { try checkEnds() }
    }

    /// Cheap integrity checks (no scan): an empty index for no records; otherwise a final
    /// line break, position 0 on the first line and the last position on the last line.
    func checkEnds() throws {
        try keys.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            if records == 0 {
                guard bytes.isEmpty else { throw damaged(at: 0, "the index lists keys for an empty dataset") }
                return
            }
            guard bytes.last == 0x0A else {
                throw damaged(at: bytes.count, "the file does not end with a line break (truncated?)")
            }
            guard try position(ofLineAt: 0, in: bytes) == 0 else {
                throw damaged(at: 0, "the first line is not position 0")
            }
            var lastStart = bytes.count - 1
            while lastStart > 0, bytes[lastStart - 1] != 0x0A { lastStart -= 1 }
            guard try position(ofLineAt: lastStart, in: bytes) == records - 1 else {
                throw damaged(at: lastStart, "the last line is not position \(records - 1)")
            }
        }
    }

    static func parse(_ data: Data, _ path: String) throws -> Value {
        try [UInt8](data).withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer)
            do {
                return try reader.readValue()
            } catch let error as JSONSyntaxError {
                throw QueryError(message: "\(path) is damaged: \(error.message)")
            }
        }
    }

    /// The prefix as the index's keys are made: white space trimmed at the start, inner
    /// runs collapsed to one space (a single trailing space is kept: "new " is not "new"),
    /// then folded by the collation.
    public static func foldPrefix(_ prefix: String, folding: KeyFolding = .none) -> String {
        SearchKey.key(folding.apply(prefix), keepingTrailingSpace: true)
    }

    /// Records whose key starts with the folded `prefix`, in dataset order: `limit` of them,
    /// skipping `(page - 1) * limit`. An empty prefix pages through everything. Both ends
    /// of the matching range are found by binary search, so any page costs the same.
    public func search(_ prefix: String, limit: Int, page: Int = 1) throws -> [Match] {
        let wanted = Array(Self.foldPrefix(prefix, folding: folding).utf8)
        let (skip, overflow) = max(0, page - 1).multipliedReportingOverflow(by: limit)
        if !sortedByKey {
            // Several keys: the matching lines name positions in key order; the results are
            // those positions in dataset order, each once.
            let positions: [Int]
            if wanted.isEmpty {
                positions = Array(0..<records)
            } else {
                positions = try keys.withUnsafeBytes { raw in
                    let bytes = raw.bindMemory(to: UInt8.self)
                    var line = Self.firstLine(notBelow: wanted, in: bytes)
                    let end = Self.firstLine(notBelow: wanted + [0xFF], in: bytes)
                    var found = Set<Int>()
                    while line < end {
                        guard let position = try position(ofLineAt: line, in: bytes) else { break }
                        found.insert(position)
                        while line < bytes.count, bytes[line] != 0x0A { line += 1 }
                        line += 1
                    }
                    return found.sorted()
                }
            }
            guard !overflow, skip < positions.count else { return [] }
            let end = limit >= positions.count - skip ? positions.count : skip + limit
            return try positions[skip..<end].map { Match(position: $0, record: try record(at: $0)) }
        }
        let range: Range<Int> = try keys.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let first = Self.firstLine(notBelow: wanted, in: bytes)
            // UTF-8 never contains 0xFF: every key starting with the prefix sorts below this.
            let end = wanted.isEmpty ? bytes.count : Self.firstLine(notBelow: wanted + [0xFF], in: bytes)
            let lower = try position(ofLineAt: first, in: bytes) ?? records
            let upper = try position(ofLineAt: end, in: bytes) ?? records
            return lower..<max(lower, upper)
        }
        guard !overflow, skip < range.count else { return [] }
        let start = range.lowerBound + skip
        let positions = start..<min(range.upperBound, start + min(limit, range.count - skip))
        return try positions.map { Match(position: $0, record: try record(at: $0)) }
    }

    /// The POSITION of the line starting at byte `offset` (nil past the last line), checked:
    /// a line must be KEY, a tab, then decimal digits.
    func position(ofLineAt offset: Int, in bytes: UnsafeBufferPointer<UInt8>) throws -> Int? {
        guard offset < bytes.count else { return nil }
        if bytes[offset] == 0x0A { throw damaged(at: offset, "a line is empty") }
        var tab = offset
        while tab < bytes.count, bytes[tab] != 0x09 {
            if bytes[tab] == 0x0A { throw damaged(at: offset, "a line has no tab") }
            tab += 1
        }
        var cursor = tab + 1
        var position = 0
        while cursor < bytes.count, bytes[cursor] != 0x0A {
            let digit = Int(bytes[cursor]) - 0x30
            guard (0...9).contains(digit) else { throw damaged(at: offset, "a position is not a whole number") }
            let (times, overflow1) = position.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { throw damaged(at: offset, "a position is too large") }
            position = sum
            cursor += 1
        }
        guard cursor > tab + 1, position < records else {
            throw damaged(at: offset, "a position is missing or beyond the \(records) records")
        }
        return position
    }

    func damaged(at offset: Int, _ problem: String) -> QueryError {
        QueryError(
            message: "the prefix index's keys.tsv is damaged at byte \(offset): \(problem); run the pipeline again")
    }

    /// The byte offset of the first line whose key is not below `wanted` (byte order),
    /// by binary search over byte offsets: each probe backs up to its line's start.
    static func firstLine(notBelow wanted: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var low = 0
        var high = bytes.count
        while low < high {
            let middle = (low + high) / 2
            var start = middle
            while start > low, bytes[start - 1] != 0x0A { start -= 1 }
            var tab = start
            while tab < bytes.count, bytes[tab] != 0x09, bytes[tab] != 0x0A { tab += 1 }
            let below = UnsafeBufferPointer(rebasing: bytes[start..<tab]).lexicographicallyPrecedes(wanted)
            if below {
                var next = tab
                while next < bytes.count, bytes[next] != 0x0A { next += 1 }
                low = next + 1
            } else {
                high = start
            }
        }
        return min(low, bytes.count)
    }

    func record(at position: Int) throws -> Value {
        let number = position / pageSize + 1
        if pageCache[number] == nil {
            let url = pagesFolder.appendingPathComponent(PagesFormat.fileName(page: number))
            guard let data = try? Data(contentsOf: url) else {
                throw QueryError(message: "page file \(url.path) is missing")
            }
            guard case .array(let values) = try Self.parse(data, url.path) else {
                throw QueryError(message: "\(url.path) is not a page")
            }
            pageCache[number] = values
        }
        let values = pageCache[number]!
        let offset = position % pageSize
        guard offset < values.count else { throw QueryError(message: "page \(number) has no record \(offset + 1)") }
        return values[offset]
    }

    /// The `display` fields of a record joined by ", " ("Alabama, US"); each is a key of
    /// the record, or a JSON Pointer (starting with '/') into it. Null, missing and empty
    /// fields are left out ("Deza, ES", not "Deza, , ES"); "-" when none has a value.
    public func displayLine(_ record: Value) -> String {
        let parts = display.compactMap { place -> String? in
            let path = place.hasPrefix("/") ? FieldPath(parsing: place)! : FieldPath(components: [.key(place)])
            switch record.value(at: path) {
            case .string(let text)?: return text.isEmpty ? nil : text
            case .null?, nil: return nil
            case let value?: return JSONWriter.compact(value)
            }
        }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ")
    }
}
