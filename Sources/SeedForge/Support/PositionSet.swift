/// A set of input positions (0, 1, 2, ...) as a bitmap: a bit a position up to the largest,
/// so that a merge of sorted runs asks "is this entry's position in it?" for every entry
/// at the cost of a shift and a mask (5M positions: 625 KB).
struct PositionSet: Sendable {
    private var words: [UInt64] = []
    /// Positions in the set.
    private(set) var count = 0

    init() {}

    init<Positions: Sequence<Int>>(_ positions: Positions) {
        for position in positions { insert(position) }
    }

    mutating func insert(_ position: Int) {
        precondition(position >= 0, "a negative position")
        let word = position >> 6
        if word >= words.count { words += repeatElement(0, count: word + 1 - words.count) }
        let bit = UInt64(1) << UInt64(position & 63)
        if words[word] & bit == 0 {
            words[word] |= bit
            count += 1
        }
    }

    @inline(__always)
    func contains(_ position: Int) -> Bool {
        let word = position >> 6
        return position >= 0 && word < words.count && words[word] & (UInt64(1) << UInt64(position & 63)) != 0
    }

    var isEmpty: Bool { count == 0 }
}
