import Foundation

/// Field converters shared by every source kind: prices to an exact decimal amount and an
/// ISO 4217 currency, URLs to absolute ones.
public enum Converters {
    /// Currency symbols and the ISO 4217 code they stand for (`$` is read as USD).
    static let symbols: [(String, String)] = [
        ("R$", "BRL"), ("US$", "USD"), ("C$", "CAD"), ("A$", "AUD"), ("£", "GBP"), ("€", "EUR"), ("$", "USD"),
        ("¥", "JPY"), ("₹", "INR"), ("₽", "RUB"), ("₩", "KRW"), ("₺", "TRY"), ("₴", "UAH"), ("₪", "ILS"),
    ]

    /// A price text as an exact amount and a currency: `£51.77` → (51.77, GBP),
    /// `$1,299.00` → (1299, USD), `1.234,56 €` → (1234.56, EUR), `EUR 12` → (12, EUR).
    /// The decimal separator is the last `.` or `,` when both occur; a lone separator
    /// followed by exactly three digits (`1,299`, `1.299`) groups thousands.
    public static func price(_ text: String) -> (amount: String, currency: String?)? {
        var rest = text.replacingOccurrences(of: "\u{00A0}", with: " ").trimmingCharacters(in: .whitespaces)
        var currency: String?
        for (symbol, code) in symbols where rest.contains(symbol) {
            currency = code
            rest = rest.replacingOccurrences(of: symbol, with: " ")
            break
        }
        let words = rest.split(separator: " ")
        if currency == nil, let code = words.first(where: { $0.count == 3 && $0.allSatisfy { $0.isUppercase && $0.isLetter } }) {
            currency = String(code)
        }
        let number = words.filter { $0.contains(where: \.isNumber) }.joined()
        guard !number.isEmpty, number.allSatisfy({ $0.isASCIIDigit || $0 == "." || $0 == "," || $0 == "-" }) else { return nil }
        let lastDot = number.lastIndex(of: ".")
        let lastComma = number.lastIndex(of: ",")
        var digits = number
        switch (lastDot, lastComma) {
        case let (dot?, comma?):
            let decimal = max(dot, comma)
            let separator: Character = decimal == dot ? "," : "."
            digits = number.replacingOccurrences(of: String(separator), with: "")
            if decimal == comma { digits = digits.replacingOccurrences(of: ",", with: ".") }
        case (let dot?, nil):
            let groups = number.split(separator: ".")
            if groups.count > 2 || (groups.count == 2 && groups[1].count == 3 && number.filter({ $0 == "." }).count == 1 && groups[0].count <= 3) {
                digits = number.replacingOccurrences(of: ".", with: "")
            }
            _ = dot
        case (nil, let comma?):
            let groups = number.split(separator: ",")
            if groups.count > 2 || (groups.count == 2 && groups[1].count == 3) {
                digits = number.replacingOccurrences(of: ",", with: "")
            } else {
                digits = number.replacingOccurrences(of: ",", with: ".")
            }
            _ = comma
        case (nil, nil):
            break
        }
        guard let amount = Decimal.canonical(digits) else { return nil }
        return (amount, currency)
    }

    /// `reference` resolved against `base` (an absolute URL) into an absolute URL.
    public static func absoluteURL(_ reference: String, base: URL?) -> String? {
        let trimmed = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        if let absolute = URL(string: trimmed), absolute.scheme != nil { return absolute.absoluteString }
        guard let base, let resolved = URL(string: trimmed, relativeTo: base) else { return nil }
        return resolved.absoluteURL.standardized.absoluteString
    }
}
