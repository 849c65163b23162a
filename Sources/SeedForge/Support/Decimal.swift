/// Exact decimal numbers as canonical text: an optional minus, digits without leading
/// zeros, and a fraction without trailing zeros (`051.770` → `51.77`, `-0.0` → `0`).
public enum ExactDecimal {
    /// The canonical form of a plain decimal (digits, at most one '.', optional '-'),
    /// or nil when `text` is not one.
    public static func canonical(_ text: String) -> String? {
        var negative = false
        var body = Substring(text)
        if body.first == "-" {
            negative = true
            body = body.dropFirst()
        }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !(whole.isEmpty && (parts.count < 2 || parts[1].isEmpty)),
            parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) })
        else { return nil }
        var integer = String(whole.drop(while: { $0 == "0" }))
        if integer.isEmpty { integer = "0" }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        while fraction.last == "0" { fraction.removeLast() }
        let digits = fraction.isEmpty ? integer : "\(integer).\(fraction)"
        return negative && digits != "0" ? "-" + digits : digits
    }
}

extension Character {
    var isASCIIDigit: Bool { asciiValue.map { (0x30...0x39).contains($0) } ?? false }
}
