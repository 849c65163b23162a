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
    /// Where lines start, made on the first location asked for (see `LineIndex`).
    private var lines: LineIndex?
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
        let index = lineIndex()
        bytes.noteScatteredRead()
        let clamped = max(0, min(offset, bytes.count))
        return bytes.withUnsafeBufferPointer { buffer in
            let (line, start) = index.line(ofOffset: clamped, in: buffer)
            var lineStart = start
            // A UTF-8 byte order mark is not a character of line 1.
            if lineStart == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                lineStart = min(3, clamped)
            }
            var countFrom = lineStart
            var column = 1
            // No checkpoint lies within `checkpointSpacing` bytes of a line's start, so an
            // offset that close (a paginated file's page number, before its records) is
            // counted from the line start without making the line's points.
            if clamped - lineStart > Self.checkpointSpacing, isLongLine(from: start, reaching: clamped, in: buffer) {
                let points = checkpoints(ofLineFrom: lineStart, in: buffer)
                let after = points.partitionPoint { $0.offset <= clamped }
                if after > 0 { (countFrom, column) = points[after - 1] }
            }
            column += CharacterCount.count(bytes[countFrom..<clamped])
            return (line + 1, column)
        }
    }

    /// Whether the line starting at `start` (which reaches `offset`) is longer than
    /// `longLine` bytes with its break: looked for no further than that.
    private func isLongLine(from start: Int, reaching offset: Int, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        let limit = min(buffer.count, start + Self.longLine + 1)
        guard offset < limit, let base = buffer.baseAddress else { return offset - start > Self.longLine }
        guard let next = memchr(base + offset, 0x0A, limit - offset) else {
            return limit < buffer.count || buffer.count - start > Self.longLine
        }
        return base.distance(to: next.assumingMemoryBound(to: UInt8.self)) + 1 - start > Self.longLine
    }

    /// The column checkpoints of one long line, made once. A point sits only before an
    /// ASCII byte other than CR/LF: a character boundary always falls there, so counting
    /// characters from it gives the same columns as counting from the line start.
    private func checkpoints(
        ofLineFrom lineStart: Int, in buffer: UnsafeBufferPointer<UInt8>
    ) -> [(offset: Int, column: Int)] {
        lock.lock()
        defer { lock.unlock() }
        if let points = checkpoints[lineStart] { return points }
        let lineEnd =
            memchr(buffer.baseAddress! + lineStart, 0x0A, buffer.count - lineStart).map {
                buffer.baseAddress!.distance(to: $0.assumingMemoryBound(to: UInt8.self)) + 1
            } ?? buffer.count
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

    /// Lets the file's pages leave memory once its records are read: the line index is
    /// made first (one pass while the pages are still in memory), so a later location
    /// reads back only the pages it points into.
    public func releasePages() {
        _ = lineIndex()
        bytes.releaseResidentPages()
    }

    /// The byte offset where a one-based line starts.
    public func offset(ofLine line: Int) -> Int {
        let index = lineIndex()
        return bytes.withUnsafeBufferPointer { index.start(ofLine: max(0, min(line - 1, index.lines - 1)), in: $0) }
    }

    private func lineIndex() -> LineIndex {
        lock.lock()
        defer { lock.unlock() }
        if let lines { return lines }
        let made = LineIndex(bytes, pieces: 1, threads: nil)
        lines = made
        return made
    }

    /// Makes the line index now, on every thread, when the file is large: before a
    /// parallel parse, whose first finding would otherwise wait for one thread to scan the
    /// whole file (at 1M CSV rows, 67 MB, about 20 ms while the other thread waited too),
    /// and which would scan it anyway when the file's pages are let go (`releasePages`).
    func findLineStarts(threads: Threads) {
        let pieces = bytes.count >= Self.parallelLineScan ? threads.count : 1
        guard pieces > 1 else { return }
        lock.lock()
        defer { lock.unlock() }
        guard lines == nil else { return }
        lines = LineIndex(bytes, pieces: pieces, threads: threads)
    }

    /// Bytes the line index holds (0 before it is made).
    var lineIndexBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return lines?.allocatedBytes ?? 0
    }

    /// Files smaller than this have their line starts found on one thread.
    static let parallelLineScan = 4 << 20
}
