extension RandomAccessCollection {
    /// The index of the first element for which `isBefore` is false, in a collection where
    /// every element it holds for comes before every element it does not (sorted positions,
    /// marks in offset order): a binary search, `endIndex` when it holds for all. One search
    /// for the places that each wrote their own (the line index, column checkpoints, a
    /// spilled dedupe's kept records and losers).
    func partitionPoint(where isBefore: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var length = count
        while length > 0 {
            let half = length / 2
            let middle = index(low, offsetBy: half)
            if try isBefore(self[middle]) {
                low = index(after: middle)
                length -= half + 1
            } else {
                length = half
            }
        }
        return low
    }
}
