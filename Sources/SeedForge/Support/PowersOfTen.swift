/// The powers of ten a double holds exactly, 10^0 through 10^22: reading a decimal of at
/// most 15 significant digits is then one correctly rounded multiplication or division, and
/// so is checking that a scaled double reads back (`JSONWriter.writePlainDecimal`).
enum PowersOfTen {
    static let exactLimit = 22

    /// 10^power, for 0 ≤ power ≤ 22.
    @inline(__always)
    static func exact(_ power: Int) -> Double {
        precondition(power >= 0 && power <= exactLimit, "10^\(power) is not exact in a double")
        return table[power]
    }

    /// The double nearest to `mantissa` × 10^`power` when one correctly rounded operation
    /// on exact doubles gives it (the mantissa below 2^53, 10^|power| exact: Clinger's fast
    /// path), so it is the double `strtod` reads from the same digits; nil otherwise.
    @inline(__always)
    static func nearestDouble(mantissa: UInt64, power: Int, negative: Bool) -> Double? {
        guard mantissa < 1 << 53, power >= -exactLimit, power <= exactLimit else { return nil }
        let magnitude = power < 0 ? Double(mantissa) / table[-power] : Double(mantissa) * table[power]
        return negative ? -magnitude : magnitude
    }

    /// The number of digits before the point of a double from 1 up to 10^15 (1 for 1 to
    /// 9.99…, 2 for 10 to 99.9…): estimated from its binary exponent (log10(2) ≈ 1233 / 4096,
    /// exact enough over this range to be at most one short), then one comparison.
    @inline(__always)
    static func integerDigits(of magnitude: Double) -> Int {
        let estimate = (Int(magnitude.exponent) &* 1233) >> 12
        return magnitude >= table[estimate + 1] ? estimate + 2 : estimate + 1
    }

    /// A literal table, set up when the program is loaded: a table made by a closure on
    /// first use was a `swift_once` call at every read (about 1% of the CSV bench's
    /// samples, from the number parser's fast path, once per number read).
    private static let table: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
        1e19, 1e20, 1e21, 1e22,
    ]
}
