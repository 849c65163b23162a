import Foundation

/// The pieces of one streamed file (or of the snapshot's lines) rendered on several
/// threads, in any order, and written in the order of their records: a piece that comes
/// before its turn waits in memory until the pieces before it are written, by whichever
/// thread hands over the piece whose turn it is. The bytes written are the same whatever
/// the threads and the order the pieces come in.
///
/// Bounded: a thread handing over a piece out of turn while `most` pieces wait already
/// waits itself until the piece whose turn it is comes (it is being rendered by another
/// thread, which waits for nothing: the piece whose turn it is never waits).
final class InOrder: @unchecked Sendable {
    /// What the pieces are written to, one piece at a time, in order.
    private let write: ([UInt8]) throws -> Void
    /// The file written, for a message.
    private let name: String
    private let most: Int
    private let condition = NSCondition()
    /// The first record of the piece whose turn it is.
    private var next = 0
    /// Pieces out of turn, by their first record: their bytes and the record after them.
    private var waiting: [Int: (bytes: [UInt8], end: Int)] = [:]
    /// Whether a thread is writing pieces (one at a time).
    private var writing = false
    private var failure: Error?

    convenience init(file: StagedFile, most: Int = 8) {
        self.init(name: file.path, most: most) { try file.write($0) }
    }

    /// Pieces written by `write`, which is called by one thread at a time.
    init(name: String, most: Int = 8, write: @escaping ([UInt8]) throws -> Void) {
        self.name = name
        self.write = write
        self.most = most
    }

    /// Hands over the bytes of records `records` (consecutive pieces cover the records
    /// from 0 without gaps or overlaps), written now if it is their turn.
    func put(_ bytes: [UInt8], records: Range<Int>) {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil, records.lowerBound != next, waiting.count >= most { condition.wait() }
        guard failure == nil else { return }
        waiting[records.lowerBound] = (bytes, records.upperBound)
        guard !writing else { return }
        writing = true
        while let piece = waiting.removeValue(forKey: next) {
            condition.unlock()
            var failed: Error?
            do { try write(piece.bytes) } catch { failed = error }
            condition.lock()
            next = piece.end
            condition.broadcast()
            if let failed {
                failure = failed
                waiting.removeAll()
                break
            }
        }
        writing = false
    }

    /// Once every piece has been handed over: throws what went wrong writing them, or an
    /// internal failure unless the pieces covered the `count` records.
    func finish(count: Int) throws {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        guard next == count, waiting.isEmpty, !writing else {
            throw InternalFailure("pieces of \(name) cover \(next) of \(count) records")
        }
    }
}
