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
    public let records: Int
    let pagesFolder: URL
    let pageSize: Int
    private var pageCache: [Int: [Value]] = [:]

    public init(folder path: String) throws {
        folder = URL(fileURLWithPath: path)
        let manifestURL = folder.appendingPathComponent("manifest.json")
        guard let manifestData = try? Data(contentsOf: manifestURL) else {
            throw QueryError(message: "\(path) is not a seedforge dataset folder (no manifest.json)")
        }
        let manifest = try Self.parse(manifestData, manifestURL.path)
        guard case .array(let outputs)? = manifest.value(at: FieldPath(components: [.key("outputs")])),
            let index = outputs.first(where: { $0.value(at: FieldPath(components: [.key("format")])) == .string("prefix-index") }),
            let indexFile = index.value(at: FieldPath(components: [.key("file")]))?.string
        else {
            throw QueryError(message: "dataset \(path) has no prefix-index output; add one to its pipeline (see README, format prefix-index)")
        }
        let indexFolder = folder.appendingPathComponent(indexFile)
        let meta = try Self.parse(try Data(contentsOf: indexFolder.appendingPathComponent("meta.json")), indexFolder.path + "/meta.json")
        func field(_ name: String) -> Value? { meta.value(at: FieldPath(components: [.key(name)])) }
        guard case .string(let key)? = field("key"), case .int(let count)? = field("records"), case .string(let pages)? = field("pages"),
            case .int(let size)? = field("pageSize"), size > 0, case .array(let display)? = field("display")
        else {
            throw QueryError(message: "\(indexFolder.path)/meta.json is not a prefix index this seedforge understands")
        }
        keyField = key
        records = Int(count)
        self.display = display.compactMap(\.string)
        pagesFolder = indexFolder.appendingPathComponent(pages).standardizedFileURL
        pageSize = Int(size)
        keys = try Data(contentsOf: indexFolder.appendingPathComponent("keys.tsv"), options: .alwaysMapped)
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

    /// Records whose key starts with the folded `prefix`, in dataset order: `limit` of them,
    /// skipping `(page - 1) * limit`. An empty prefix pages through everything.
    public func search(_ prefix: String, limit: Int, page: Int = 1) throws -> [Match] {
        let wanted = Array(Collation.key(prefix).utf8)
        let positions: [Int] = keys.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var line = Self.firstLine(notBelow: wanted, in: bytes)
            var skip = max(0, page - 1) * limit
            var found: [Int] = []
            while line < bytes.count, found.count < limit {
                var tab = line
                while tab < bytes.count, bytes[tab] != 0x09 { tab += 1 }
                guard tab - line >= wanted.count, wanted.indices.allSatisfy({ bytes[line + $0] == wanted[$0] }) else { break }
                var end = tab + 1
                var position = 0
                while end < bytes.count, bytes[end] != 0x0A {
                    position = position * 10 + Int(bytes[end] &- 0x30)
                    end += 1
                }
                if skip > 0 { skip -= 1 } else { found.append(position) }
                line = end + 1
            }
            return found
        }
        return try positions.map { Match(position: $0, record: try record(at: $0)) }
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
        return low
    }

    func record(at position: Int) throws -> Value {
        let number = position / pageSize + 1
        if pageCache[number] == nil {
            let url = pagesFolder.appendingPathComponent(PagesFormat.fileName(page: number))
            guard let data = try? Data(contentsOf: url) else { throw QueryError(message: "page file \(url.path) is missing") }
            guard case .array(let values) = try Self.parse(data, url.path) else { throw QueryError(message: "\(url.path) is not a page") }
            pageCache[number] = values
        }
        let values = pageCache[number]!
        let offset = position % pageSize
        guard offset < values.count else { throw QueryError(message: "page \(number) has no record \(offset + 1)") }
        return values[offset]
    }

    /// The `display` fields of a record joined by ", " ("Alabama, US").
    public func displayLine(_ record: Value) -> String {
        display.map { name in
            switch record.value(at: FieldPath(components: [.key(name)])) {
            case .string(let text)?: return text
            case .null?, nil: return ""
            case let value?: return JSONWriter.compact(value)
            }
        }.joined(separator: ", ")
    }
}
