import Testing

@testable import SeedForge

/// The writer's plain-decimal path must give exactly the text Swift's `description` gives
/// (the bytes every dataset has always had), for every double it takes.
@Suite("JSON writer: numbers")
struct JSONWriterNumberTests {
    static func written(_ double: Double) -> String {
        var writer = JSONWriter()
        writer.writeDouble(double)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func plain(_ double: Double) -> String? {
        var bytes: [UInt8] = []
        guard JSONWriter.writePlainDecimal(double, into: &bytes) else {
            #expect(bytes.isEmpty, "nothing appended when the plain path declines \(double)")
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decimals as data holds them: 1 to 17 significant digits at every scale from 10^-6 to
    /// 10^16, both signs, read as a parser reads them.
    @Test func decimalsOfEveryLengthAndScaleAreWrittenAsDescriptionWritesThem() {
        var random = SplitMix64(state: 20_261_123)
        var taken = 0
        for _ in 0..<200_000 {
            let digits = Int.random(in: 1...17, using: &random)
            var mantissa = UInt64.random(in: 0..<10, using: &random)
            for _ in 1..<digits { mantissa = mantissa * 10 + UInt64.random(in: 0..<10, using: &random) }
            let exponent = Int.random(in: -22...16, using: &random)
            let sign = Bool.random(using: &random) ? "-" : ""
            let double = Double("\(sign)\(mantissa)e\(exponent)")!
            #expect(Self.written(double) == double.description, "\(sign)\(mantissa)e\(exponent)")
            if Self.plain(double) != nil { taken += 1 }
        }
        // Most of them have few enough digits in the plain range: the path is really used.
        #expect(taken > 80_000)
    }

    /// Any bit pattern: mostly 17-digit doubles, which the plain path must decline or get right.
    @Test func arbitraryDoublesAreWrittenAsDescriptionWritesThem() {
        var random = SplitMix64(state: 42)
        for _ in 0..<200_000 {
            let double = Double(bitPattern: random.next())
            guard double.isFinite else { continue }
            #expect(Self.written(double) == double.description, "bits \(double.bitPattern)")
            let near = Double.random(in: -1e6...1e6, using: &random)
            #expect(Self.written(near) == near.description, "bits \(near.bitPattern)")
        }
    }

    @Test func theEdgesOfThePlainRangeAreWrittenAsDescriptionWritesThem() {
        let edges: [Double] = [
            0.001, 0.0009999999999999998, 0.001000000000000001, 0.0012345678901234, 0.01, 0.1, 0.5, 1, 9.5,
            999_999_999_999_999, 999_999_999_999_999.9, 1e15, 1e15 - 0.125, 123_456_789_012_345.6,
            9_007_199_254_740_992, 0.1 + 0.2, 1.0 / 3.0, 2.0 / 3.0, 100, 1266, 48.86752, 32.05908, -0.125,
            -180, 179.99999999999997, 5e-324, .greatestFiniteMagnitude, 0, -0.0, 1e-4, 1e16, 12_345_678.9,
        ]
        for double in edges + edges.map({ -$0 }) {
            #expect(Self.written(double) == double.description, "\(double.description)")
        }
        #expect(Self.plain(48.86752) == "48.86752")
        #expect(Self.plain(-0.125) == "-0.125")
        #expect(Self.plain(1266) == "1266.0")
        #expect(Self.plain(0.1 + 0.2) == nil, "17 significant digits: left to description")
        #expect(Self.plain(1e-4) == nil, "below 0.001: left to description")
    }
}
