/// Strict RFC 3339 timestamps (`2025-09-17T10:15:00Z`, `2025-09-17T12:15:00.250+02:00`):
/// a full date, `T` (or `t`, or a space), a time with optional fraction, and a mandatory
/// `Z` or numeric offset. Calendar ranges are checked (months, days per month with leap
/// years, hours, minutes, seconds up to a leap second 60).
public enum Timestamp {
    /// An exact instant: whole seconds since 1970-01-01T00:00:00Z and the fraction's digits
    /// (trailing zeros dropped), so nanosecond timestamps order exactly, which a Double
    /// (about 0.24 µs apart at today's dates) cannot do.
    public struct Instant: Comparable, Sendable {
        public let seconds: Int
        public let fraction: [UInt8]

        public static func < (a: Instant, b: Instant) -> Bool {
            a.seconds != b.seconds ? a.seconds < b.seconds : a.fraction.lexicographicallyPrecedes(b.fraction)
        }

        public var approximate: Double {
            var value = 0.0
            var scale = 0.1
            for digit in fraction {
                value += Double(digit) * scale
                scale /= 10
            }
            return Double(seconds) + value
        }
    }

    /// The day number (days since 1970-01-01) of a calendar date written YYYY-MM-DD, or nil
    /// when the text is not one or names no real day (2025-02-30).
    public static func day(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        let isDate =
            bytes.count == 10 && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-")
            && bytes.enumerated().allSatisfy {
                $0.offset == 4 || $0.offset == 7 || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0.element)
            }
        guard isDate, let midnight = instant(text + "T00:00:00Z") else { return nil }
        return Int(midnight.seconds / 86400)
    }

    /// Seconds since 1970-01-01T00:00:00Z, or nil when the text is not a valid timestamp.
    public static func parse(_ text: String) -> Double? { instant(text)?.approximate }

    /// The exact instant, or nil when the text is not a valid timestamp.
    public static func instant(_ text: String) -> Instant? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for i in start..<(start + count) {
                let d = b[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                value = value * 10 + Int(d)
            }
            return value
        }
        guard let year = digits(0, 4), b[4] == UInt8(ascii: "-"), let month = digits(5, 2), b[7] == UInt8(ascii: "-"),
            let day = digits(8, 2), [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(b[10]),
            let hour = digits(11, 2), b[13] == UInt8(ascii: ":"), let minute = digits(14, 2),
            b[16] == UInt8(ascii: ":"),
            let second = digits(17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fraction: [UInt8] = []
        if index < b.count, b[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < b.count, b[index] &- UInt8(ascii: "0") < 10 {
                fraction.append(b[index] - UInt8(ascii: "0"))
                index += 1
            }
            guard index > start else { return nil }
            while fraction.last == 0 { fraction.removeLast() }
        }
        guard index < b.count else { return nil }
        var offsetSeconds = 0
        switch b[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = b[index] == UInt8(ascii: "-") ? -1 : 1
            guard let oh = digits(index + 1, 2), index + 3 < b.count, b[index + 3] == UInt8(ascii: ":"),
                let om = digits(index + 4, 2), oh < 24, om < 60
            else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
            index += 6
        default:
            return nil
        }
        guard index == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Instant(seconds: seconds, fraction: fraction)
    }

    /// `2026-11-26T15:38:14.123Z`: an instant (seconds since 1970, UTC) to the millisecond,
    /// the text Foundation's `ISO8601DateFormatter` gives with `.withInternetDateTime` and
    /// `.withFractionalSeconds` (rounded to the nearest millisecond). Written here because
    /// that formatter goes through ICU: formatting one time stamp for the manifest brought
    /// about 2.6 MiB of ICU's code and locale data into every run's resident memory (page
    /// faults counted with `perf record -e page-faults` on an empty run).
    public static func internetTime(secondsSince1970 seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let (days, inDay) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, millisecond) = inDay < 0 ? (days - 1, inDay + 86_400_000) : (days, inDay)
        let (year, month, dayOfMonth) = civil(fromDays: day)
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        let second = millisecond / 1000
        return "\(digits(year, 4))-\(digits(month, 2))-\(digits(dayOfMonth, 2))T\(digits(second / 3600, 2)):"
            + "\(digits(second / 60 % 60, 2)):\(digits(second % 60, 2)).\(digits(millisecond % 1000, 3))Z"
    }

    /// The proleptic Gregorian date of a day number (days since 1970-01-01): the inverse
    /// of `daysFromCivil`.
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
