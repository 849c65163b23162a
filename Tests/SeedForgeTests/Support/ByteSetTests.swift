import Testing

@testable import SeedForge

@Suite("ByteSet")
struct ByteSetTests {
    /// The first byte of the set is found wherever it falls in a word (or in the tail past
    /// the last whole word), and bytes next to those of the set (±1, the high bit flipped)
    /// are not taken for them.
    @Test func findsTheFirstByteOfTheSetFromAnyOffset() {
        var generator = SplitMix64(state: 7)
        let sets: [[UInt8]] = [
            [0x2C, 0x22, 0x0A, 0x0D], [0x09, 0x0A, 0x09, 0x09], [0x3B, 0x0A, 0x27, 0x27], [0x00, 0xFF, 0x80, 0x7F],
        ]
        for round in 0..<4000 {
            let members = sets[round % sets.count]
            let set = ByteSet(members[0], members[1], members[2], members[3])
            let near = members.flatMap { [$0, $0 &+ 1, $0 &- 1, $0 ^ 0x80] }
            let length = Int(generator.next() % 40)
            let bytes = (0..<length).map { _ in
                generator.next() % 5 == 0 ? near[Int(generator.next() % UInt64(near.count))] : UInt8(ascii: "x")
            }
            bytes.withUnsafeBufferPointer { buffer in
                for from in 0...length {
                    let expected = bytes[from...].firstIndex { members.contains($0) } ?? length
                    let found = buffer.baseAddress.map { set.firstIndex(in: $0, from: from, count: length) } ?? length
                    #expect(found == expected, "round \(round) from \(from): \(bytes)")
                }
            }
        }
    }
}
