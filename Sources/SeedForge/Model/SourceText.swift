import CSeedForgeSupport
import Foundation

/// The bytes of one input file, kept for the run so that a finding can be located
/// (line, column, JSON Pointer) long after the record was read.
public final class SourceText: @unchecked Sendable {
    /// The path as shown in messages: relative to the working directory when possible.
    public let displayPath: String
    public let bytes: FileBytes
    /// JSON Pointer of the array holding this file's records ("" for a top-level array,
    /// "/results" inside an object); nil for line-based files. Set by the source kind
    /// before it reads records.
    public var recordsPointer: String?
    /// For records keyed by id in an object (`key-field`): each record's key, by index, so
    /// its pointer is `/3040051` rather than its position.
    public var recordKeys: [String]?
    /// The file's place in its source (1 for the first file read): HTML locations name it.
    public var pageNumber: Int = 1
    /// The file's absolute path, when it was read from disk.
    public var absolutePath: String?
    /// The folder of the source's first file: HTML pages' addresses are relative to it.
    public var sourceRoot: String?
    /// How a record's parts are found again in this file when it is not JSON (a CSV
    /// row's cells, an HTML page's items); set by the source kind before it reads records.
    public var layout: (any RecordLayout)?
    /// The source path of each field its source declares, by field name (set when the
    /// file is read; a record appended into another collection still finds its values).
    public internal(set) var fieldPaths: [String: FieldPath]?
    /// The collection whose source read this file (set with `fieldPaths`): a field finds
    /// its value here only when it is declared by that collection (`FieldSpec.declaredBy`).
    public internal(set) var collection: CollectionID?
    /// The file's number in its run's `InputFiles` (set when the run keeps it; -1 before):
    /// locations in the file carry it.
    public internal(set) var fileNumber = -1
    private let lock = NSLock()
    private var lineStarts: [Int]?
    /// For lines longer than `longLine` bytes (a minified file is one line), the column at
    /// points about every `checkpointSpacing` bytes, so a column is counted from the
    /// nearest point before it instead of from the line start: locations in any order
    /// cost at most a few kilobytes of counting each.
    private var checkpoints: [Int: [(offset: Int, column: Int)]] = [:]
    static let longLine = 65_536
    static let checkpointSpacing = 2_048

    public init(displayPath: String, bytes: FileBytes) {
        self.displayPath = displayPath
        self.bytes = bytes
    }

    public convenience init(displayPath: String, bytes: [UInt8]) {
        self.init(displayPath: displayPath, bytes: FileBytes(copying: bytes))
    }

    /// One-based line and column of a byte offset. Lines end at LF (a CR before it
    /// belongs to the line end); columns count characters, not bytes.
    public func lineAndColumn(ofOffset offset: Int) -> (line: Int, column: Int) {
        let starts = computeLineStarts()
        bytes.noteScatteredRead()
        let clamped = max(0, min(offset, bytes.count))
        var low = 0
        var high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= clamped { low = mid } else { high = mid - 1 }
        }
        var lineStart = starts[low]
        // A UTF-8 byte order mark is not a character of line 1.
        if lineStart == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            lineStart = min(3, clamped)
        }
        var countFrom = lineStart
        var column = 1
        let lineEnd = low + 1 < starts.count ? starts[low + 1] : bytes.count
        if lineEnd - lineStart > Self.longLine {
            let points = checkpoints(ofLineFrom: lineStart, to: lineEnd)
            var low = 0
            var high = points.count - 1
            var best = -1
            while low <= high {
                let mid = (low + high) / 2
                if points[mid].offset <= clamped {
                    best = mid
                    low = mid + 1
                } else {
                    high = mid - 1
                }
            }
            if best >= 0 { (countFrom, column) = points[best] }
        }
        column += CharacterCount.count(bytes[countFrom..<clamped])
        return (low + 1, column)
    }

    /// The column checkpoints of one long line, made once. A point sits only before an
    /// ASCII byte other than CR/LF: a character boundary always falls there, so counting
    /// characters from it gives the same columns as counting from the line start.
    private func checkpoints(ofLineFrom lineStart: Int, to lineEnd: Int) -> [(offset: Int, column: Int)] {
        lock.lock()
        defer { lock.unlock() }
        if let points = checkpoints[lineStart] { return points }
        var points: [(offset: Int, column: Int)] = []
        var offset = lineStart
        var column = 1
        while true {
            var next = offset + Self.checkpointSpacing
            while next < lineEnd, bytes[next] >= 0x80 || bytes[next] == 0x0A || bytes[next] == 0x0D { next += 1 }
            guard next < lineEnd else { break }
            column += CharacterCount.count(bytes[offset..<next])
            offset = next
            points.append((offset, column))
        }
        checkpoints[lineStart] = points
        return points
    }

    /// The location of a byte offset, with the JSON Pointer of what is there.
    public func location(ofOffset offset: Int, pointer: String) -> Location {
        let (line, column) = lineAndColumn(ofOffset: offset)
        return Location(file: displayPath, line: line, column: column, pointer: pointer, fileNumber: fileNumber)
    }

    /// Lets the file's pages leave memory once its records are read: the line starts
    /// are found first (one pass while the pages are still in memory), so a later
    /// location reads back only the page it points into.
    public func releasePages() {
        _ = computeLineStarts()
        bytes.releaseResidentPages()
    }

    /// The byte offset where a one-based line starts.
    public func offset(ofLine line: Int) -> Int {
        let starts = computeLineStarts()
        return starts[max(0, min(line - 1, starts.count - 1))]
    }

    private func computeLineStarts() -> [Int] {
        lock.lock()
        defer { lock.unlock() }
        if let lineStarts { return lineStarts }
        var starts = [0]
        lineBreaks(in: 0..<bytes.count, into: &starts)
        lineStarts = starts
        return starts
    }

    /// Finds the line starts now, on every thread, when the file is large: before a
    /// parallel parse, whose first finding would otherwise wait for one thread to scan the
    /// whole file (at 1M CSV rows, 67 MB, about 20 ms while the other thread waited too),
    /// and which would scan it anyway when the file's pages are let go (`releasePages`).
    func findLineStarts(threads: Threads) {
        let pieces = bytes.count >= Self.parallelLineScan ? threads.count : 1
        guard pieces > 1 else { return }
        lock.lock()
        defer { lock.unlock() }
        guard lineStarts == nil else { return }
        let count = bytes.count
        let found = threads.run(pieces) { piece in
            var breaks: [Int] = []
            lineBreaks(in: (count * piece / pieces)..<(count * (piece + 1) / pieces), into: &breaks)
            return breaks
        }
        var starts = [0]
        starts.reserveCapacity(found.reduce(1) { $0 + $1.count })
        for piece in found { starts += piece }
        lineStarts = starts
    }

    /// Files smaller than this have their line starts found on one thread.
    static let parallelLineScan = 4 << 20

    /// Appends the offsets just after each line break in `range`, in order. A large file's pages
    /// are released behind the scan, so counting lines never brings the whole file into
    /// memory. Each window's line breaks are counted, then written where the count made
    /// room (`seedforge_byte_ends`).
    private func lineBreaks(in range: Range<Int>, into starts: inout [Int]) {
        var pass = FileBytes.ReleasingPass(bytes, from: range.lowerBound)
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let window = 1 << 20
            var position = range.lowerBound
            while position < range.upperBound {
                let length = min(window, range.upperBound - position)
                let found = Int(seedforge_count_byte(base + position, Int64(length), 0x0A))
                if found > 0 {
                    starts.append(
                        contentsOf: [Int](unsafeUninitializedCapacity: found) { out, initialized in
                            initialized = Int(
                                seedforge_byte_ends(
                                    base + position, Int64(length), 0x0A, Int64(position),
                                    UnsafeMutableRawPointer(out.baseAddress!).assumingMemoryBound(to: Int64.self)))
                        })
                }
                position += length
                pass.reached(position)
            }
        }
    }
}
