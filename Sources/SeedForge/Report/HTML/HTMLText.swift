import Foundation

/// Text for the HTML report: escaping, and numbers written for people (`206,352`,
/// `12.5%`, `0.018 s`, `1.2 MB`), the same on every machine (no locale).
enum HTMLText {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// An integer with thousands separated by commas: `206352` → `206,352`.
    static func count(_ value: Int) -> String { groupedDigits(value) }

    /// A number as short as it can be read: integers with separators, others with at
    /// most `places` decimals (trailing zeros dropped).
    static func number(_ value: Double, places: Int = 4) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value < 0 ? "-∞" : "∞") }
        if value.rounded() == value && abs(value) < 1e15 { return count(Int(value)) }
        var text = String(format: "%.\(places)f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        let negative = text.hasPrefix("-")
        if negative { text.removeFirst() }
        let parts = text.split(separator: ".", maxSplits: 1)
        let whole = count(Int(parts[0]) ?? 0)
        let result = parts.count > 1 ? whole + "." + parts[1] : whole
        return negative && result != "0" ? "-" + result : result
    }

    /// `part` of `whole` as a percentage with one decimal (`0%` for nothing, `<0.1%` for a
    /// little); `–` when the whole is zero.
    static func percent(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "–" }
        if part == 0 { return "0%" }
        let value = Double(part) * 100 / Double(whole)
        if value < 0.1 { return "<0.1%" }
        return number((value * 10).rounded() / 10, places: 1) + "%"
    }

    static func seconds(_ value: Double) -> String {
        if value >= 10 { return number((value * 10).rounded() / 10, places: 1) + " s" }
        if value >= 1 { return String(format: "%.2f s", value) }
        if value >= 0.001 { return number((value * 10000).rounded() / 10, places: 1) + " ms" }
        return number((value * 1e6).rounded(), places: 0) + " µs"
    }

    static func bytes(_ value: Int) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var amount = Double(value)
        var unit = 0
        while amount >= 1000 && unit < units.count - 1 {
            amount /= 1000
            unit += 1
        }
        return unit == 0 ? count(value) + " bytes" : String(format: "%.1f", amount) + " " + units[unit]
    }

    /// A value as JSON text, cut to `limit` characters; text values without quotes.
    static func value(_ value: Value?, limit: Int = 100) -> String {
        guard let value else { return "" }
        let text: String
        if case .string(let string) = value {
            text = string
        } else {
            text = JSONWriter.compact(value)
        }
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    /// A name usable in an HTML id: letters, digits and `-`; anything else becomes `-`.
    static func anchor(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar in
                (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-"))
                    ? Character(scalar) : "-"
            })
    }
}
