import Testing

@testable import SeedForge

/// The raw-memory number writers (`JSONWriter.storePlainDecimal`, `storeInteger`, used by
/// `RecordFrame`) against the writer they replaced, kept here as it was: the same bytes,
/// and the same doubles declined, over millions of doubles of every shape.
@Suite("JSON writer: numbers against the previous writer")
struct JSONWriterPreviousNumberTests {
    /// The plain-decimal writer as it was before it wrote into raw memory.
    enum Previous {
        static let pairs: [UInt8] = (0..<100).flatMap {
            [UInt8(ascii: "0") + UInt8($0 / 10), UInt8(ascii: "0") + UInt8($0 % 10)]
        }

        static func write(_ double: Double, into bytes: inout [UInt8]) -> Bool {
            let magnitude = double.magnitude
            guard magnitude >= 0.001, magnitude < 1e15 else { return false }
            // Fraction digits that leave 15 significant ones.
            var scale: Int
            if magnitude < 1 {
                scale = magnitude < 0.01 ? 17 : magnitude < 0.1 ? 16 : 15
            } else {
                scale = 15 - PowersOfTen.integerDigits(of: magnitude)
            }
            let power = PowersOfTen.exact(scale)
            let scaled = (magnitude * power).rounded()
            guard scaled < 1e15, scaled / power == magnitude else { return false }
            var digits = UInt64(scaled)
            // Trailing zeros off, four at a time and then one at a time (45.12345 is scaled to
            // 451234500000000).
            while scale >= 4, digits % 10_000 == 0 {
                digits /= 10_000
                scale -= 4
            }
            while scale > 0, digits % 10 == 0 {
                digits /= 10
                scale -= 1
            }
            // The text right-aligned in 32 bytes, built from the last digit back: the fraction,
            // the point, the integer part (at least "0"; a fraction always has one digit, "1.0"),
            // the sign; then appended at once.
            var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            let length = withUnsafeMutableBytes(of: &text) { raw -> Int in
                var position = 32
                var rest = digits
                func emit(_ count: Int) {
                    // `count` digits of `rest`, two at a time from the pair table.
                    var left = count
                    while left >= 2 {
                        let pair = Int(rest % 100) &* 2
                        rest /= 100
                        position -= 2
                        raw[position] = pairs[pair]
                        raw[position + 1] = pairs[pair + 1]
                        left -= 2
                    }
                    if left == 1 {
                        position -= 1
                        raw[position] = UInt8(ascii: "0") &+ UInt8(rest % 10)
                        rest /= 10
                    }
                }
                if scale == 0 {
                    position -= 1
                    raw[position] = UInt8(ascii: "0")
                } else {
                    emit(scale)
                }
                position -= 1
                raw[position] = UInt8(ascii: ".")
                if rest == 0 {
                    position -= 1
                    raw[position] = UInt8(ascii: "0")
                } else {
                    var integerDigits = 0
                    var probe = rest
                    repeat {
                        integerDigits += 1
                        probe /= 10
                    } while probe > 0
                    emit(integerDigits)
                }
                if double < 0 {
                    position -= 1
                    raw[position] = UInt8(ascii: "-")
                }
                return 32 - position
            }
            withUnsafeBytes(of: &text) { raw in
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[(32 - length)...]))
            }
            return true
        }
    }

    static func check(_ double: Double, _ what: @autoclosure () -> String) -> Bool {
        var expected: [UInt8] = []
        let took = Previous.write(double, into: &expected)
        var got: [UInt8] = []
        let takes = JSONWriter.writePlainDecimal(double, into: &got)
        #expect(took == takes && expected == got, "\(what()): \(double.description)")
        return took
    }

    /// Decimals as data holds them (1 to 17 significant digits, scales 10^-6 to 10^16), the
    /// doubles next to them (one unit in the last place either way), and halves
    /// (`x.5` at every scale, where rounding ties to even and away from zero differ).
    @Test func decimalsAndTheirNeighboursAreWrittenAsBefore() {
        var random = SplitMix64(state: 20_261_125)
        var taken = 0
        for _ in 0..<400_000 {
            let digits = Int.random(in: 1...17, using: &random)
            let mantissa = UInt64.random(in: 0..<Self.powerOfTen(digits), using: &random)
            let exponent = Int.random(in: -22...16, using: &random)
            let base = Double("\(mantissa)e\(exponent)")!
            for double in [base, base.nextUp, base.nextDown, (base.rounded(.down) + 0.5)] {
                for signed in [double, -double] where signed.isFinite {
                    if Self.check(signed, "\(mantissa)e\(exponent)") { taken += 1 }
                }
            }
        }
        #expect(taken > 400_000, "the plain path is really used")
    }

    /// Any bit pattern, and uniform doubles in the range the plain path takes.
    @Test func arbitraryDoublesAreWrittenAsBefore() {
        var random = SplitMix64(state: 7)
        for _ in 0..<400_000 {
            let bits = random.next()
            _ = Self.check(Double(bitPattern: bits), "bits \(bits)")
            _ = Self.check(Double.random(in: -1e15...1e15, using: &random), "uniform")
            _ = Self.check(Double.random(in: -1...1, using: &random), "uniform below 1")
        }
    }

    @Test func integersAreWrittenAsTheirDescription() {
        var random = SplitMix64(state: 11)
        var edges: [Int64] = [0, 1, -1, 9, 10, 99, 100, .max, .min, .max - 1, .min + 1]
        for power in 0...18 {
            let ten = Int64(Self.powerOfTen(power))
            edges += [ten, ten - 1, ten + 1, -ten, -ten + 1, -ten - 1]
        }
        for _ in 0..<200_000 {
            edges.append(Int64(bitPattern: random.next()) >> Int64.random(in: 0...63, using: &random))
        }
        var buffer = [UInt8](repeating: 0, count: JSONWriter.integerRoom)
        for value in edges {
            let length = buffer.withUnsafeMutableBufferPointer { JSONWriter.storeInteger(value, at: $0.baseAddress!) }
            #expect(String(decoding: buffer[..<length], as: UTF8.self) == String(value))
        }
    }

    /// 10^power as an integer, for 0 ≤ power ≤ 19.
    static func powerOfTen(_ power: Int) -> UInt64 {
        precondition(power >= 0 && power <= 19, "10^\(power) does not fit in a UInt64")
        var value: UInt64 = 1
        for _ in 0..<power { value *= 10 }
        return value
    }
}
