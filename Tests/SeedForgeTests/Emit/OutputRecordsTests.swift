import Testing

@testable import SeedForge

/// `OutputRecords.forEach`: every record once, in order, numbered from 0 across batches,
/// whatever the `width` of values prefetched ahead (a hint, even past a record's values).
@Suite("Emit: output records")
struct OutputRecordsTests {
    static func records(_ count: Int, source: SourceText) -> [Record] {
        (0..<count).map { index in
            Record(
                values: index % 3 == 0 ? [.int(Int64(index))] : [.int(Int64(index)), .string("r\(index)")],
                origin: Origin(source: source, offset: index, index: index))
        }
    }

    @Test(arguments: [0, 1, 2, 40])
    func forEachVisitsEveryRecordInOrderAcrossBatches(width: Int) throws {
        let source = SourceText(displayPath: "x", bytes: [])
        let all = Self.records(1_000, source: source)
        // Batches of uneven sizes, as a spilled collection hands them over, and one batch.
        let cuts = [0, 1, 1, 300, 777, 1_000]
        let batched = OutputRecords(count: all.count) { body in
            for (start, end) in zip(cuts, cuts.dropFirst()) { try body(all[start..<end]) }
        }
        for records in [batched, OutputRecords(all)] {
            var seen: [(Int, Value, Value)] = []
            try records.forEach(width: width) { position, record in
                seen.append((position, record[FieldID(index: 0)], record[FieldID(index: 1)]))
            }
            #expect(seen.map(\.0) == Array(0..<1_000))
            #expect(seen.map(\.1) == all.map { $0[FieldID(index: 0)] })
            #expect(seen.map(\.2) == all.map { $0[FieldID(index: 1)] })
        }
        withExtendedLifetime(source) {}
    }
}
