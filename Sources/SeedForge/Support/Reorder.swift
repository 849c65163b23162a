/// Rearranging a large array by moving its elements, never copying them: a
/// record copied is a reference count taken and later dropped on its values, which at a
/// million records showed in the profile of sort and dedupe. The array should be held
/// only by the caller (taken out of its store), or it is copied once first.
enum Reorder {
    /// Puts `array[order[i]]` at `i` for every `i`: `order` must be a permutation of the
    /// array's indices (a sort's positions), which is checked. The elements are moved into
    /// a new array in their order (reading in `order`, writing in sequence, so the reads
    /// overlap), and the old array's slots, left empty, are filled with `filler` so that
    /// it can be freed as usual (`filler`'s copies should cost nothing to release: a
    /// record with no values).
    static func permute<Element, Position: BinaryInteger>(
        _ array: inout [Element], by order: [Position], filler: Element
    ) {
        let count = array.count
        precondition(order.count == count, "a permutation has one position per element")
        var taken = [Bool](repeating: false, count: count)
        for position in order {
            precondition(position >= 0 && position < count && !taken[Int(position)], "not a permutation")
            taken[Int(position)] = true
        }
        array = array.withUnsafeMutableBufferPointer { source in
            let moved = [Element](unsafeUninitializedCapacity: count) { target, initialized in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                for (index, position) in order.enumerated() {
                    (to + index).initialize(to: (from + Int(position)).move())
                }
                from.initialize(repeating: filler, count: count)
                initialized = count
            }
            return moved
        }
    }

    /// Removes the elements whose index `drop` says, keeping the others in order: they
    /// are swapped to the front (in place), and the dropped ones removed from the end.
    static func remove<Element>(_ array: inout [Element], where drop: (Int) -> Bool) {
        let kept = array.withUnsafeMutableBufferPointer { buffer in
            var kept = 0
            for index in buffer.indices where !drop(index) {
                if index != kept { buffer.swapAt(kept, index) }
                kept += 1
            }
            return kept
        }
        array.removeLast(array.count - kept)
    }
}
