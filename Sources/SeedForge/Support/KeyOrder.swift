import Foundation

/// The sorted order of a collection's keys for the in-memory `sort` step, found with as
/// little beside the records as it can: the sort's buffers made the peak of the 240k
/// reference job (issue 11), 17.5 MiB over the records with a `KeyTable` (the key bytes,
/// about 39 a city, their 8-byte offsets, the prefixes, then the radix sort's two arrays
/// of 12-byte slots). Here each key's first 8 bytes live only in its radix slot, written
/// where the key is encoded; of the bytes after them at most 23 are kept, behind one byte
/// of the key's length up to 8 (`appendTail`), at 32-bit offsets, and the few keys that
/// the cut leaves tied are made again (`orderCut`); the keys are gathered a round of
/// 32,768 a thread at a time, so no thread's piece is copied in while the whole table is
/// alive; and the radix sort orders the two halves of the slots with one spare half, then
/// merges them. At most 12 + 6 + 4 + 1 + 24 bytes a record at its peak.
///
/// The order is `KeyTable.sortedPositions`'s: the keys' byte order, shorter first on a
/// tie, then position, for any thread count.
enum KeyOrder {
    typealias Slot = KeyTable.Slot

    /// Keys gathered per thread and round: pieces of about 0.5 MB for cities.
    static let round = 32_768

    /// The most bytes kept of a key beside its prefix (its length byte included): 31 of a
    /// key's bytes in all. A reference-job city's key is about 39 bytes (the name, the
    /// country folded and as written, then the id: a rank byte, its 8 bytes as a double
    /// and 8 as an exact integer), so for most cities only the id's exact integer is cut,
    /// which ids below 2^53 do not need; the keys that the cut leaves tied are made again
    /// (`orderCut`). Keeping 16 made them again for so many cities of long names at 1M
    /// that the run took 1.05x the CPU.
    static let kept = 24

    /// The positions of `count` keys (`encode(i, &key)` writes key `i`) in key order, found
    /// on up to `threads` threads; nil when the bytes kept of the keys pass `offsetLimit`
    /// (32-bit offsets: a `KeyTable` sorts them then).
    static func positions(
        count: Int, threads: Threads, offsetLimit: Int = Int(UInt32.max), _ encode: (Int, inout ByteKey) -> Void
    ) -> [UInt32]? {
        precondition(count <= Int(UInt32.max), "more keys than 32-bit positions hold")
        var slots = [Slot](repeating: Slot(prefix: 0, position: 0), count: count)
        var ends = [UInt32](repeating: 0, count: count + 1)
        var cut = [Bool](repeating: false, count: count)
        var tails: [UInt8] = []
        let gathered = slots.withUnsafeMutableBufferPointer { slots in
            ends.withUnsafeMutableBufferPointer { ends in
                cut.withUnsafeMutableBufferPointer { cut in
                    gather(into: slots, ends, cut, &tails, threads: threads, offsetLimit: offsetLimit, encode)
                }
            }
        }
        guard gathered else { return nil }
        slots.withUnsafeMutableBufferPointer { slots in
            radixSortHalves(slots)
            tails.withUnsafeBufferPointer { tails in
                ends.withUnsafeBufferPointer { ends in
                    cut.withUnsafeBufferPointer { cut in
                        // The stored keys lack the 8 bytes the slots hold (and agree on in a tie).
                        KeyTable.orderTiedRuns(slots, tails, ends, skip: 8, threads: threads) { run in
                            orderCut(run, tails, ends, cut, encode)
                        }
                    }
                }
            }
        }
        tails = []
        ends = []
        cut = []
        return slots.map { UInt32(truncatingIfNeeded: $0.position) }
    }

    /// What is kept of a key beside its 8-byte prefix: its length up to 8, then its bytes
    /// after the eighth. Between keys of one prefix (zero-padded) this orders as the whole
    /// keys do: a key of 8 bytes or more has the prefix's bytes, so the rest decides, shorter
    /// first; a shorter key is the start of any longer key of its prefix (whose bytes past
    /// its end are the padding's zeros), so it comes first, the shorter of two first.
    /// At most `kept` bytes: true when the key was cut.
    static func appendTail(of key: UnsafeBufferPointer<UInt8>, to tail: inout [UInt8]) -> Bool {
        tail.append(UInt8(min(key.count, 8)))
        guard key.count > 8 else { return false }
        let end = min(key.count, 8 + kept - 1)
        tail.append(contentsOf: UnsafeBufferPointer(rebasing: key[8..<end]))
        return end < key.count
    }

    /// Within a run of slots of one prefix, ordered by their kept bytes: where neighbours
    /// kept the same bytes and some were cut, orders them again by their whole keys, made
    /// again (then position). Keys whose kept bytes differ are in their order already: they
    /// differ within the bytes kept, or the shorter was not cut and is the start of the other.
    static func orderCut(
        _ run: UnsafeMutableBufferPointer<Slot>, _ tails: UnsafeBufferPointer<UInt8>,
        _ ends: UnsafeBufferPointer<UInt32>, _ cut: UnsafeBufferPointer<Bool>, _ encode: (Int, inout ByteKey) -> Void
    ) {
        func same(_ a: Int, _ b: Int) -> Bool {
            KeyTable.compareKeys(a, b, tails, ends) == 0
        }
        var start = 0
        for index in 1...run.count {
            if index < run.count, same(run[index - 1].position, run[index].position) { continue }
            if index - start > 1, run[start..<index].contains(where: { cut[$0.position] }) {
                var keys: [(key: [UInt8], slot: Slot)] = run[start..<index].map { slot in
                    var key = ByteKey()
                    encode(slot.position, &key)
                    return (key.bytes, slot)
                }
                keys.sort { a, b in
                    a.key != b.key ? a.key.lexicographicallyPrecedes(b.key) : a.slot.position < b.slot.position
                }
                for (offset, entry) in keys.enumerated() { run[start + offset] = entry.slot }
            }
            start = index
        }
    }

    /// Encodes every key into its slot (prefix, position) and its tail, a round at a time
    /// on every thread; `ends[i + 1]` is where key `i`'s tail ends in `tails`, `cut[i]`
    /// whether it was cut. False when the tails pass `offsetLimit` bytes.
    static func gather(
        into slots: UnsafeMutableBufferPointer<Slot>, _ ends: UnsafeMutableBufferPointer<UInt32>,
        _ cut: UnsafeMutableBufferPointer<Bool>, _ tails: inout [UInt8], threads: Threads, offsetLimit: Int,
        _ encode: (Int, inout ByteKey) -> Void
    ) -> Bool {
        let count = slots.count
        let roundSize = max(1, threads.count) * round
        var first = 0
        while first < count {
            let size = min(roundSize, count - first)
            let pieces = Parallel.chunks(size, threads: threads, minimumChunk: 8_192) { range in
                let records = (first + range.lowerBound)..<(first + range.upperBound)
                var piece: [UInt8] = []
                piece.reserveCapacity(records.count * kept)
                var key = ByteKey()
                for index in records {
                    key.removeAll()
                    encode(index, &key)
                    key.bytes.withUnsafeBufferPointer { key in
                        slots[index] = Slot(prefix: KeyTable.prefix(of: key), position: index)
                        cut[index] = appendTail(of: key, to: &piece)
                    }
                    // Within the piece; moved by the piece's place in `tails` below.
                    ends[index + 1] = UInt32(truncatingIfNeeded: piece.count)
                }
                return (records, piece)
            }
            for (records, piece) in pieces {
                let base = tails.count
                guard base + piece.count <= offsetLimit else { return false }
                if tails.capacity < base + piece.count {
                    // Room for the rest at the average so far, plus an eighth: one copy of
                    // the tails after the first round, not a doubling now and then.
                    let average = (base + piece.count) / (records.upperBound) + 1
                    tails.reserveCapacity(base + piece.count + (count - records.upperBound) * average * 9 / 8)
                }
                tails += piece
                for index in records { ends[index + 1] &+= UInt32(truncatingIfNeeded: base) }
            }
            first += size
        }
        return true
    }

    /// Orders the slots by prefix, equal prefixes in position order: each half by a radix
    /// sort (`KeyTable.radixSort`) through one spare half, then the halves merged, the first half's
    /// slot first on a tie (its positions are the lower). The spare is half of
    /// `KeyTable.radixSorted`'s second array; the merge costs one pass more.
    static func radixSortHalves(_ slots: UnsafeMutableBufferPointer<Slot>) {
        let count = slots.count
        guard count > 1 else { return }
        let half = count / 2
        let spare = UnsafeMutableBufferPointer<Slot>.allocate(capacity: count - half)
        defer { spare.deallocate() }
        KeyTable.radixSort(UnsafeMutableBufferPointer(rebasing: slots[..<half]), spare: spare)
        KeyTable.radixSort(UnsafeMutableBufferPointer(rebasing: slots[half...]), spare: spare)
        let (to, left) = (slots.baseAddress!, spare.baseAddress!)
        left.initialize(from: to, count: half)
        var (a, b, next) = (0, half, 0)
        while a < half, b < count {
            if to[b].prefix < left[a].prefix {
                to[next] = to[b]
                b += 1
            } else {
                to[next] = left[a]
                a += 1
            }
            next += 1
        }
        // What is left of the second half is in place already.
        (to + next).update(from: left + a, count: half - a)
    }
}
