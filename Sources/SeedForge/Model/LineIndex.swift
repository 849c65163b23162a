import CSeedForgeSupport
import Foundation

/// Where a file's lines start, kept sparsely so that it does not grow with the file as a
/// table of every line start did (8 bytes a line: 40 MB for the 5M-city dump, 160 MB for
/// the 20M one, held for the whole run whatever the memory limit): a mark every 64th line
/// and, on lines longer than that, one every 64 to 128 KiB (at the first 64 KiB boundary
/// of the scan at least 64 KiB past the mark before), each 24 bytes (about 0.4 byte a line
/// of the city dumps). A location counts the line breaks from the mark before its offset
/// (at most 64 lines or 128 KiB of bytes, a few KB for a city dump), unless no break lies
/// between that mark and the next: then it is on the mark's line.
struct LineIndex {
    /// A place in the file: its byte offset, the line breaks before it and the offset of the
    /// line it lies in.
    struct Mark {
        let offset: Int
        let breaks: Int
        let lineStart: Int
    }

    static let lineSpacing = 64
    static let byteSpacing = 64 << 10

    /// In offset order; the first at offset 0.
    private(set) var marks: [Mark]
    /// Lines in the file (its line breaks plus one).
    let lines: Int

    /// Indexes `bytes`, in `pieces` parts scanned side by side (each lets the file's pages
    /// go behind it, see `FileBytes.ReleasingPass`).
    init(_ bytes: FileBytes, pieces: Int, threads: Threads?) {
        let count = bytes.count
        let scan = { (piece: Int) -> Piece in
            Self.scan(bytes, (count * piece / pieces)..<(count * (piece + 1) / pieces))
        }
        let found = threads?.run(pieces, scan) ?? (0..<pieces).map(scan)
        var marks: [Mark] = []
        marks.reserveCapacity(found.reduce(0) { $0 + $1.marks.count })
        var breaks = 0
        // The start of the line a piece begins in: the last line start of the pieces before.
        var carried = 0
        for piece in found {
            for mark in piece.marks {
                marks.append(
                    Mark(
                        offset: mark.offset, breaks: breaks + mark.breaks,
                        lineStart: mark.lineStart >= 0 ? mark.lineStart : carried))
            }
            breaks += piece.breaks
            if piece.lastStart >= 0 { carried = piece.lastStart }
        }
        if marks.isEmpty { marks = [Mark(offset: 0, breaks: 0, lineStart: 0)] }
        self.marks = marks
        lines = breaks + 1
    }

    /// One piece's marks, with the breaks counted from the piece's start and -1 for a line
    /// start before it; its break count and the offset after its last break (-1: none).
    private struct Piece {
        var marks: [Mark] = []
        var breaks = 0
        var lastStart = -1
    }

    private static func scan(_ file: FileBytes, _ range: Range<Int>) -> Piece {
        var piece = Piece()
        guard !range.isEmpty else { return piece }
        var pass = FileBytes.ReleasingPass(file, from: range.lowerBound)
        file.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            // The offsets after each break of one window, reused (at most 512 KiB).
            var ends = [Int64](repeating: 0, count: 0)
            var position = range.lowerBound
            while position < range.upperBound {
                if piece.marks.last.map({ position - $0.offset >= byteSpacing }) ?? true {
                    piece.marks.append(Mark(offset: position, breaks: piece.breaks, lineStart: piece.lastStart))
                }
                let length = min(byteSpacing, range.upperBound - position)
                let found = Int(seedforge_count_byte(base + position, Int64(length), 0x0A))
                if found > 0 {
                    if ends.count < found { ends = [Int64](repeating: 0, count: found) }
                    ends.withUnsafeMutableBufferPointer { out in
                        _ = seedforge_byte_ends(base + position, Int64(length), 0x0A, Int64(position), out.baseAddress!)
                        // The first break that makes the count a multiple of the spacing.
                        var index = (lineSpacing - piece.breaks % lineSpacing) - 1
                        while index < found {
                            let start = Int(out[index])
                            piece.marks.append(
                                Mark(offset: start, breaks: piece.breaks + index + 1, lineStart: start))
                            index += lineSpacing
                        }
                        piece.lastStart = Int(out[found - 1])
                    }
                    piece.breaks += found
                }
                position += length
                pass.reached(position)
            }
        }
        return piece
    }

    /// The zero-based line of a byte offset (0...count) and the offset its line starts at.
    func line(ofOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, start: Int) {
        let low = lastMark { $0.offset <= offset }
        let mark = marks[low]
        let length = offset - mark.offset
        // No break between this mark and the next one (or the file's end): the offset is on
        // the mark's line, found without counting, which on a long line would scan up to
        // 128 KiB a location (a minified 29 MB array with a million findings: 1.4x the CPU).
        let breaksAfter = low + 1 < marks.count ? marks[low + 1].breaks : lines - 1
        guard length > 0, breaksAfter > mark.breaks, let base = bytes.baseAddress else {
            return (mark.breaks, mark.lineStart)
        }
        let found = Int(seedforge_count_byte(base + mark.offset, Int64(length), 0x0A))
        guard found > 0 else { return (mark.breaks, mark.lineStart) }
        // The last break before the offset, found just above.
        var last = offset - 1
        while base[last] != 0x0A { last -= 1 }
        return (mark.breaks + found, last + 1)
    }

    /// The offset a zero-based line (0..<lines) starts at.
    func start(ofLine line: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let mark = marks[lastMark { $0.breaks <= line }]
        if mark.breaks == line { return mark.lineStart }
        guard let base = bytes.baseAddress else { return mark.lineStart }
        var position = mark.offset
        for _ in mark.breaks..<line {
            let next = memchr(base + position, 0x0A, bytes.count - position)!
            position = base.distance(to: next.assumingMemoryBound(to: UInt8.self)) + 1
        }
        return position
    }

    /// The index of the last mark `isAtOrBefore` holds for (it holds for the first mark and
    /// for every mark before one it holds for: offsets and breaks only grow).
    private func lastMark(_ isAtOrBefore: (Mark) -> Bool) -> Int {
        max(0, marks.partitionPoint(where: isAtOrBefore) - 1)
    }

    /// Bytes the index holds.
    var allocatedBytes: Int { marks.capacity * MemoryLayout<Mark>.stride }
}
