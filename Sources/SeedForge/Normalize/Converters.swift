import Foundation

/// Field converters shared by every source kind: prices to an exact decimal amount and an
/// ISO 4217 currency, URLs to absolute ones.
public enum Converters {
    /// What a text can be converted to (`convert:` of an html field, `to:` of `normalize: convert`).
    public enum Target: String, CaseIterable, Sendable {
        case priceAmount = "price-amount", priceCurrency = "price-currency", url, number, integer
        /// HTML entities decoded and white space collapsed (`normalize: convert` only).
        case text

        /// A value of the kind a conversion gives, for checking a declared type against it
        /// before any data is read.
        public var sample: Value {
            switch self {
            case .priceAmount: return .decimal("1.5")
            case .number: return .double(1.5)
            case .integer: return .int(1)
            case .priceCurrency, .url, .text: return .string("text")
            }
        }
    }

    /// Why a text did not convert: the rule code and a message (without the field name).
    public struct Failure: Error, Sendable {
        public let rule: RuleCode
        public let message: String
    }

    /// Converts `text` to `target`; relative URLs are resolved against `base`.
    public static func convert(_ text: String, to target: Target, base: URL?) -> Result<Value, Failure> {
        switch target {
        case .text:
            return .success(.string(Trim.collapsed(Convert.decodeEntities(text))))
        case .url:
            guard let url = absoluteURL(text, base: base) else {
                return .failure(
                    Failure(
                        rule: .url,
                        message: "'\(text)' is not a URL\(base == nil ? " (relative links need base-url)" : "")"))
            }
            return .success(.string(url))
        case .priceAmount, .priceCurrency:
            guard let price = price(text) else {
                return .failure(Failure(rule: .price, message: "cannot read a price from '\(text)'"))
            }
            if target == .priceAmount { return .success(.decimal(price.amount)) }
            guard let currency = price.currency else {
                return .failure(Failure(rule: .price, message: "'\(text)' names no currency"))
            }
            return .success(.string(currency))
        case .number:
            guard let number = number(text) else {
                return .failure(Failure(rule: .number, message: "'\(text)' is not a number"))
            }
            return .success(.double(number))
        case .integer:
            guard let number = integer(text) else {
                return .failure(Failure(rule: .number, message: "'\(text)' is not a whole number"))
            }
            return .success(.int(number))
        }
    }

    /// Currencies with three decimals (Bahraini dinar...): "1.250" is one and a quarter.
    static let threeDecimals: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]

    /// Three upper-case ASCII letters, the shape of an ISO 4217 code.
    static func isISOCode(_ word: String) -> Bool {
        word.count == 3 && word.allSatisfy { $0.isUppercase && $0.isASCII }
    }

    /// A price text as an exact amount and a currency: `£51.77` → (51.77, GBP),
    /// `$1,299.00` → (1299, USD), `1.234,56 €` → (1234.56, EUR), `EUR 12` → (12, EUR).
    /// The decimal separator is the last `.` or `,` when both occur; a lone separator
    /// followed by exactly three digits (`1,299`, `1.299`) groups thousands.
    public static func price(_ text: String) -> (amount: String, currency: String?)? {
        // One pass: digits and separators make the number, letters make words (an ISO code
        // or a symbol's prefix such as R$), symbols name the currency.
        var number = ""
        var tokens: [String] = []
        var words: [String] = []
        var word = ""
        var symbolCurrency: String?
        for character in text {
            if character.isASCIIDigit || character == "." || character == "," || (character == "-" && number.isEmpty) {
                if !word.isEmpty {
                    words.append(word)
                    word = ""
                }
                number.append(character)
            } else if character.isLetter {
                if !number.isEmpty {
                    tokens.append(number)
                    number = ""
                }
                word.append(character)
            } else {
                if !number.isEmpty {
                    tokens.append(number)
                    number = ""
                }
                if let code = symbolCode(character, after: word) {
                    if let earlier = symbolCurrency, earlier != code { return nil }
                    symbolCurrency = code
                    word = ""
                } else if !word.isEmpty {
                    words.append(word)
                    word = ""
                }
                if !(character.isWhitespace || symbolCode(character, after: "") != nil || character == "'") {
                    return nil
                }
            }
        }
        if !word.isEmpty { words.append(word) }
        if !number.isEmpty { tokens.append(number) }
        // A sign before the symbol ("-£3.50") belongs to the number after it.
        if tokens.count > 1, tokens[0] == "-" { tokens = ["-" + tokens[1]] + tokens.dropFirst(2) }
        // Several runs of digits join only as space-separated thousands: "1 234,56".
        guard let firstToken = tokens.first else { return nil }
        for token in tokens.dropFirst() where !(token.prefix(while: \.isASCIIDigit).count == 3) { return nil }
        number = firstToken + tokens.dropFirst().joined()
        let codes = words.filter(Self.isISOCode)
        if Set(codes + (symbolCurrency.map { [$0] } ?? [])).count > 1 { return nil }
        let currency = symbolCurrency ?? codes.first
        if !words.allSatisfy(Self.isISOCode) { return nil }
        guard number.contains(where: \.isASCIIDigit) else { return nil }
        let dots = number.filter { $0 == "." }.count
        let commas = number.filter { $0 == "," }.count
        var digits: String
        /// Whether a lone separator groups thousands: exactly three digits after it, one to
        /// three before it that are not just "0" (`0,500` is a half), and not a currency
        /// with three decimals.
        func grouped(_ separator: Character) -> Bool {
            let groups = number.split(separator: separator, omittingEmptySubsequences: false)
            if groups.count > 2 { return true }
            guard groups.count == 2, groups[1].count == 3 else { return false }
            let whole = groups[0].filter(\.isASCIIDigit)
            guard (1...3).contains(whole.count), whole.first != "0" else { return false }
            return !(currency.map(threeDecimals.contains) ?? false)
        }
        if dots > 0 && commas > 0 {
            let decimalIsComma = number.lastIndex(of: ",")! > number.lastIndex(of: ".")!
            digits = number.filter { $0 != (decimalIsComma ? "." : ",") }
            if decimalIsComma { digits = String(digits.map { $0 == "," ? "." : $0 }) }
        } else if commas > 0 {
            digits = grouped(",") ? number.filter { $0 != "," } : String(number.map { $0 == "," ? "." : $0 })
        } else if dots > 0 {
            digits = dots > 1 || grouped(".") ? number.filter { $0 != "." } : number
        } else {
            digits = number
        }
        guard let amount = ExactDecimal.canonical(digits) else { return nil }
        return (amount, currency)
    }

    /// The currency a symbol stands for, given the letters just before it (`R` + `$`).
    static func symbolCode(_ character: Character, after prefix: String) -> String? {
        switch character {
        case "$":
            switch prefix {
            case "R": return "BRL"
            case "C": return "CAD"
            case "A": return "AUD"
            case "US", "": return "USD"
            default: return nil
            }
        case "£": return "GBP"
        case "€": return "EUR"
        case "¥": return "JPY"
        case "₹": return "INR"
        case "₽": return "RUB"
        case "₩": return "KRW"
        case "₺": return "TRY"
        case "₴": return "UAH"
        case "₪": return "ILS"
        default: return nil
        }
    }

    /// A number written plainly or with comma thousands (`1,234.5`); nil otherwise
    /// (`1,5` is not read as fifteen).
    public static func number(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let plain = Double(trimmed), !trimmed.contains(where: { $0.isLetter }) { return plain }
        guard trimmed.range(of: "^-?[0-9]{1,3}(,[0-9]{3})+(\\.[0-9]+)?$", options: .regularExpression) != nil else {
            return nil
        }
        return Double(trimmed.replacingOccurrences(of: ",", with: ""))
    }

    public static func integer(_ text: String) -> Int64? {
        guard let value = number(text), value.rounded() == value, abs(value) < 9.2e18 else { return nil }
        return Int64(value)
    }

    /// Schemes a converted URL may have.
    static let urlSchemes: Set<String> = ["http", "https", "file", "ftp"]

    /// `reference` resolved against `base` (an absolute URL) into an absolute URL.
    public static func absoluteURL(_ reference: String, base: URL?) -> String? {
        let trimmed = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        // A plain relative path (`products/a.html`) joins the base's folder as it is.
        if let base, isPlainRelative(trimmed), trimmed.allSatisfy(\.isASCII) {
            let folder =
                base.absoluteString.hasSuffix("/")
                ? base.absoluteString : String(base.absoluteString[...base.absoluteString.lastIndex(of: "/")!])
            if base.query == nil, base.fragment == nil, folder.contains("://") { return folder + trimmed }
        }
        if let absolute = URL(string: trimmed), let scheme = absolute.scheme {
            return urlSchemes.contains(scheme.lowercased()) ? absolute.absoluteString : nil
        }
        guard let base, let resolved = URL(string: trimmed, relativeTo: base) else { return nil }
        return resolved.absoluteURL.standardized.absoluteString
    }

    /// No scheme, no leading `/`, no `.` or `..` segments, no query, fragment or escapes.
    static func isPlainRelative(_ text: String) -> Bool {
        guard let first = text.first, first != "/", first != "." else { return false }
        if text.contains(where: { $0 == ":" || $0 == "?" || $0 == "#" || $0 == "%" || $0 == "\\" || $0.isWhitespace }) {
            return false
        }
        return !text.split(separator: "/").contains { $0 == "." || $0 == ".." }
    }
}
