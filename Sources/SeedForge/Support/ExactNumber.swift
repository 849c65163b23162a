/// An exact decimal number, `significand × 10^exponent`, for sums, means and rounding that
/// must not go through a binary float: the mean of twenty ratings summing to 70.5 is
/// exactly 3.525, and rounds half away from zero to 3.53 (a `Double` holds 3.52499…).
///
/// A `double` is taken at its shortest round-trip decimal form, the digits seedforge
/// writes for it (`4.8`, not 4.79999…); integers and `decimal` texts are taken as they
/// are. Arithmetic that would leave 38 digits returns nil, and callers fall back to
/// doubles (numbers near the limits of a double).
public struct ExactNumber: Sendable, Equatable {
    public private(set) var significand: Int128
    public private(set) var exponent: Int

    public init(significand: Int128, exponent: Int = 0) {
        self.significand = significand
        self.exponent = exponent
    }

    public static let zero = ExactNumber(significand: 0)

    /// The exact value of an `int`, `decimal` or finite `double`; nil for anything else.
    public init?(_ value: Value) {
        switch value {
        case .int(let integer): self.init(significand: Int128(integer))
        case .decimal(let text): self.init(text: text)
        case .double(let double):
            guard double.isFinite else { return nil }
            self.init(text: double.description)
        default: return nil
        }
    }

    /// Parses `[-]digits[.digits][e[+|-]digits]` (the forms `Double.description` and
    /// `ExactDecimal.canonical` write); nil for anything else or more than 38 digits.
    public init?(text: String) {
        var bytes = Substring(text).utf8[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        }
        var significand: Int128 = 0
        var exponent = 0
        var digits = 0
        var significant = 0
        var seenPoint = false
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            digits += 1
            if significand == 0 && byte == UInt8(ascii: "0") {
                if seenPoint { exponent -= 1 }
                continue
            }
            significant += 1
            guard significant <= 38 else { return nil }
            significand = significand * 10 + Int128(byte - UInt8(ascii: "0"))
            if seenPoint { exponent -= 1 }
        }
        guard digits > 0 else { return nil }
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            guard let power = Int(String(decoding: bytes, as: UTF8.self)), abs(power) < 10_000 else { return nil }
            exponent += power
        }
        self.init(significand: negative ? -significand : significand, exponent: significand == 0 ? 0 : exponent)
    }

    /// 10^power, or nil beyond `Int128`.
    static func power(_ power: Int) -> Int128? {
        guard power >= 0, power <= 38 else { return nil }
        var result: Int128 = 1
        for _ in 0..<power { result *= 10 }
        return result
    }

    /// The significand at a smaller exponent, or nil when it would overflow.
    func significand(atExponent target: Int) -> Int128? {
        guard target <= exponent else { return nil }
        if significand == 0 { return 0 }
        guard let scale = Self.power(exponent - target) else { return nil }
        let (result, overflow) = significand.multipliedReportingOverflow(by: scale)
        return overflow ? nil : result
    }

    /// The exact sum, or nil when it does not fit.
    public func adding(_ other: ExactNumber) -> ExactNumber? {
        let target = min(exponent, other.exponent)
        guard let a = significand(atExponent: target), let b = other.significand(atExponent: target) else { return nil }
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : ExactNumber(significand: sum, exponent: target)
    }

    /// `self / divisor` rounded half away from zero to `places` decimals, computed exactly;
    /// nil when it does not fit.
    public func divided(by divisor: Int, places: Int) -> ExactNumber? {
        guard divisor > 0 else { return nil }
        // self / divisor = significand × 10^(exponent + places) / divisor, in units of 10^-places.
        var numerator = significand
        var denominator = Int128(divisor)
        let shift = exponent + places
        if shift >= 0 {
            guard let scaled = significand(atExponent: -places) else { return nil }
            numerator = scaled
        } else {
            guard let scale = Self.power(-shift) else {
                // |self| < 10^(38 + exponent) ≤ 10^-places / 10: rounds to zero.
                return ExactNumber(significand: 0, exponent: -places)
            }
            let (product, overflow) = denominator.multipliedReportingOverflow(by: scale)
            guard !overflow else { return nil }
            denominator = product
        }
        let magnitude = numerator.magnitude
        var quotient = magnitude / denominator.magnitude
        let remainder = magnitude % denominator.magnitude
        if remainder >= denominator.magnitude - remainder { quotient += 1 }  // 2r ≥ d: half away from zero
        guard quotient <= UInt128(Int128.max) else { return nil }
        let signed = Int128(quotient)
        return ExactNumber(significand: numerator < 0 ? -signed : signed, exponent: -places)
    }

    /// Rounded half away from zero to `places` decimals (unchanged when it has no more).
    public func rounded(places: Int) -> ExactNumber? {
        exponent >= -places ? self : divided(by: 1, places: places)
    }

    /// Canonical decimal text: no exponent, no leading zeros, no trailing fraction zeros
    /// (`3.53`, `-0.5`, `1200`), as `ExactDecimal.canonical` writes it.
    public var text: String {
        if significand == 0 { return "0" }
        var digits = String(significand.magnitude)
        var exponent = self.exponent
        while exponent < 0, digits.count > 1, digits.last == "0" {
            digits.removeLast()
            exponent += 1
        }
        var body: String
        if exponent >= 0 {
            body = digits + String(repeating: "0", count: exponent)
        } else {
            let fraction = -exponent
            if digits.count <= fraction { digits = String(repeating: "0", count: fraction - digits.count + 1) + digits }
            let point = digits.index(digits.endIndex, offsetBy: -fraction)
            body = digits[..<point] + "." + digits[point...]
        }
        return significand < 0 ? "-" + body : body
    }

    /// The absolute value, or nil when it does not fit (the least significand).
    var magnitude: ExactNumber? {
        guard significand.magnitude <= UInt128(Int128.max) else { return nil }
        return ExactNumber(significand: Int128(significand.magnitude), exponent: exponent)
    }

    /// The nearest double (exact for the decimals seedforge writes: its shortest form).
    public var double: Double { Double(text) ?? .nan }

    /// The value as an integer, or nil when it has a fraction or does not fit `Int64`.
    public var int64: Int64? {
        if exponent >= 0 { return significand(atExponent: 0).flatMap { Int64(exactly: $0) } }
        guard let scale = Self.power(-exponent), significand % scale == 0 else { return nil }
        return Int64(exactly: significand / scale)
    }
}

extension DecimalPlaces {
    /// `value` rounded half away from zero on its exact decimal form (a double at its
    /// shortest round-trip digits: 3.525 → 3.53, 1.0005 → 1.001), as a double; the
    /// binary rounding for values whose digits do not fit.
    func roundExactly(_ value: Double) -> Double {
        guard let exact = ExactNumber(.double(value)), let rounded = exact.rounded(places: places) else {
            return round(value)
        }
        return rounded.double
    }
}

/// A count and sum of numbers for means and sums: exact (`ExactNumber`) while the digits
/// fit, with a double sum and running mean kept for numbers that do not (near the limits
/// of a double), which then give the old binary results.
struct NumberTotal: Sendable {
    private(set) var count = 0
    private(set) var exact: ExactNumber? = .zero
    private var binarySum = 0.0
    private var binaryMean = 0.0
    /// The sum of the values' magnitudes, exactly; nil once it does not fit (or a value has
    /// no exact form). While it fits, no partial sum of the values in any order or grouping
    /// leaves the digits `exact` holds (each is at most it in magnitude, at the same or a
    /// coarser exponent), so `exact` is the same however the values were summed: totals of
    /// parts of the values (shards) add up to the total of all (`add(_:)`).
    private(set) var absolute: ExactNumber? = .zero

    init() {}

    /// Adds a numeric value; anything else is skipped (returns false).
    @discardableResult
    mutating func add(_ value: Value) -> Bool {
        guard let number = value.number else { return false }
        count += 1
        binarySum += number
        binaryMean += (number - binaryMean) / Double(count)
        if let sum = exact {
            let term = ExactNumber(value)
            exact = term.flatMap { sum.adding($0) }
            if let magnitude = absolute {
                absolute = term?.magnitude.flatMap { magnitude.adding($0) }
            }
        } else {
            absolute = nil
        }
        return true
    }

    /// Whether the exact sum is the same in any order and grouping of the values (see
    /// `absolute`): only then is a total made of totals (`add(_:)`) that of all values.
    var isOrderFree: Bool { absolute != nil && exact != nil }

    /// A total of a part of the values, as a shard's partial holds it: its count, exact sum
    /// and sum of magnitudes (order-free totals only). No binary fallback is kept: callers
    /// use such totals only while their means and sums are found from the exact sum
    /// (`isExact(places:)`), and making it would cost a decimal text a total (6% of the
    /// finish of 8 partials holding 500,000 rating totals).
    init(count: Int, exact: ExactNumber, absolute: ExactNumber) {
        self.count = count
        self.exact = exact
        self.absolute = absolute
    }

    /// Adds the total of other values (another shard's). The exact sums are those of all
    /// values when both totals are order-free and the sum stays so (`isOrderFree`); the
    /// binary fallback is then not used, and is not kept exactly otherwise.
    mutating func add(_ other: NumberTotal) {
        count += other.count
        binarySum += other.binarySum
        binaryMean = count > 0 ? binarySum / Double(count) : 0
        exact = exact.flatMap { sum in other.exact.flatMap { sum.adding($0) } }
        absolute = absolute.flatMap { sum in other.absolute.flatMap { sum.adding($0) } }
    }

    /// Whether the mean or sum rounded to `places` is found from the exact sum alone,
    /// never from the binary fallback (see `mean` and `sum`).
    func isExact(places: DecimalPlaces) -> Bool {
        exactSum(places) != nil && (count == 0 || exactMean(places) != nil)
    }

    /// The exact sum rounded to `places` (nil: as it is), or nil when it did not fit.
    func exactSum(_ places: DecimalPlaces?) -> ExactNumber? {
        guard let exact else { return nil }
        guard let places else { return exact }
        return exact.rounded(places: places.places)
    }

    /// The exact mean rounded half away from zero to `places`; nil without values or when
    /// it did not fit.
    func exactMean(_ places: DecimalPlaces) -> ExactNumber? {
        guard count > 0, let exact else { return nil }
        return exact.divided(by: count, places: places.places)
    }

    /// The mean as a double: the exact mean rounded to `places`, or without places the
    /// exact sum divided by the count; nil without values.
    func mean(_ places: DecimalPlaces?) -> Double? {
        guard count > 0 else { return nil }
        if let places {
            return exactMean(places)?.double ?? places.round(binaryMean)
        }
        return exact.map { $0.double / Double(count) } ?? binaryMean
    }

    /// The sum as a double rounded to `places`; nil when it is not finite.
    func sum(_ places: DecimalPlaces?) -> Double? {
        let value = exactSum(places)?.double ?? places.map { $0.round(binarySum) } ?? binarySum
        return value.isFinite ? value : nil
    }
}
