import Foundation

/// The CSS selectors seedforge understands, translated to XPath 1.0 for libxml2:
///
/// - type `div`, universal `*`;
/// - class `.price`, id `#main`;
/// - attributes `[href]`, `[type=text]`, `[title="A B"]`, and `~=` (word), `^=` (starts),
///   `$=` (ends), `*=` (contains);
/// - `:nth-child(N)` (a number) and `:first-child`;
/// - the descendant (space) and child (`>`) combinators; groups with `,`.
///
/// Anything else (sibling combinators, other pseudo-classes) is an error that says so. A
/// selector starting with `xpath:` is used as XPath as it is.
public enum CSSSelector {
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public static let supported =
        "tag, *, .class, #id, [attr], [attr=value] (also ~= ^= $= *=), :nth-child(N), :first-child, descendant (space) and child (>) combinators, groups with ','"

    /// XPath for the selector. `relative` selectors search below a context node (an
    /// item); others search the whole document.
    public static func xpath(_ selector: String, relative: Bool) throws -> String {
        let trimmed = selector.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("xpath:") { return String(trimmed.dropFirst(6)).trimmingCharacters(in: .whitespaces) }
        if trimmed.isEmpty { throw SyntaxError(message: "empty selector") }
        let groups = try splitGroups(trimmed)
        return try groups.map { try translate($0, relative: relative) }.joined(separator: " | ")
    }

    static func splitGroups(_ text: String) throws -> [String] {
        var groups: [String] = []
        var current = ""
        var quote: Character?
        var bracket = 0
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "[" || character == "(" {
                bracket += 1
            } else if character == "]" || character == ")" {
                bracket -= 1
            } else if character == ",", bracket == 0 {
                groups.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        groups.append(current)
        let cleaned = groups.map { $0.trimmingCharacters(in: .whitespaces) }
        if cleaned.contains(where: \.isEmpty) { throw SyntaxError(message: "empty selector in a group") }
        return cleaned
    }

    static func translate(_ selector: String, relative: Bool) throws -> String {
        var scanner = Scanner(Array(selector))
        var xpath = relative ? "." : ""
        var combinator = "//"
        while true {
            scanner.skipSpaces()
            guard !scanner.atEnd else { break }
            if scanner.peek == ">" {
                if combinator == "/" { throw SyntaxError(message: "two '>' in a row in '\(selector)'") }
                combinator = "/"
                scanner.advance()
                continue
            }
            if let other = scanner.peek, "+~".contains(other) {
                throw SyntaxError(
                    message: "the '\(other)' combinator is not supported in '\(selector)'; supported: \(supported)")
            }
            xpath += combinator + (try compound(&scanner, selector))
            combinator = "//"
            if let next = scanner.peek, next == " " || next == "\t" || next == ">" { continue }
            guard scanner.atEnd else { throw SyntaxError(message: "unexpected '\(scanner.peek!)' in '\(selector)'") }
        }
        if combinator == "/" { throw SyntaxError(message: "'\(selector)' ends with '>'") }
        return xpath
    }

    /// One compound selector: a tag (or `*`) and its class, id, attribute and pseudo parts.
    static func compound(_ scanner: inout Scanner, _ selector: String) throws -> String {
        var tag = "*"
        var predicates: [String] = []
        var nthChild: Int?
        if let first = scanner.peek, first == "*" {
            scanner.advance()
        } else if let first = scanner.peek, first.isLetter {
            tag = scanner.identifier().lowercased()
        }
        while let next = scanner.peek, !(next == " " || next == "\t" || next == ">") {
            switch next {
            case ".":
                scanner.advance()
                let name = scanner.identifier()
                guard !name.isEmpty else { throw SyntaxError(message: "'.' without a class name in '\(selector)'") }
                predicates.append("contains(concat(' ', normalize-space(@class), ' '), \(literal(" \(name) ")))")
            case "#":
                scanner.advance()
                let name = scanner.identifier()
                guard !name.isEmpty else { throw SyntaxError(message: "'#' without an id in '\(selector)'") }
                predicates.append("@id=\(literal(name))")
            case "[":
                scanner.advance()
                predicates.append(try attribute(&scanner, selector))
            case ":":
                scanner.advance()
                let name = scanner.identifier()
                if name == "first-child" {
                    nthChild = 1
                } else if name == "nth-child", scanner.peek == "(" {
                    scanner.advance()
                    let number = scanner.identifier()
                    guard let n = Int(number), n >= 1, scanner.peek == ")" else {
                        throw SyntaxError(message: ":nth-child takes a whole number (1 or more) in '\(selector)'")
                    }
                    scanner.advance()
                    nthChild = n
                } else {
                    throw SyntaxError(message: "':\(name)' is not supported in '\(selector)'; supported: \(supported)")
                }
            default:
                throw SyntaxError(message: "unexpected '\(next)' in '\(selector)'; supported: \(supported)")
            }
        }
        if let nthChild {
            // Position among all element siblings, whatever their tag.
            let own = tag == "*" ? "" : "[self::\(tag)]"
            return "*[count(preceding-sibling::*)=\(nthChild - 1)]\(own)" + predicates.map { "[\($0)]" }.joined()
        }
        return tag + predicates.map { "[\($0)]" }.joined()
    }

    static func attribute(_ scanner: inout Scanner, _ selector: String) throws -> String {
        scanner.skipSpaces()
        // HTML attribute names are case-insensitive; libxml2 stores them in lower case.
        let name = scanner.identifier().lowercased()
        guard !name.isEmpty else { throw SyntaxError(message: "'[' without an attribute name in '\(selector)'") }
        scanner.skipSpaces()
        if scanner.peek == "]" {
            scanner.advance()
            return "@\(name)"
        }
        var op = ""
        while let c = scanner.peek, "~^$*=".contains(c) {
            op.append(c)
            scanner.advance()
        }
        scanner.skipSpaces()
        var value = ""
        if let quote = scanner.peek, quote == "\"" || quote == "'" {
            scanner.advance()
            while let c = scanner.peek, c != quote {
                value.append(c)
                scanner.advance()
            }
            guard scanner.peek == quote else { throw SyntaxError(message: "unclosed quote in '\(selector)'") }
            scanner.advance()
        } else {
            value = scanner.identifier()
        }
        scanner.skipSpaces()
        guard scanner.peek == "]" else { throw SyntaxError(message: "unclosed '[' in '\(selector)'") }
        scanner.advance()
        let v = literal(value)
        // CSS: an empty value after ^= $= *= ~= matches nothing.
        if value.isEmpty, op != "=" { return "false()" }
        switch op {
        case "=": return "@\(name)=\(v)"
        case "~=": return "contains(concat(' ', normalize-space(@\(name)), ' '), \(literal(" \(value) ")))"
        case "^=": return "starts-with(@\(name), \(v))"
        case "*=": return "contains(@\(name), \(v))"
        case "$=": return "substring(@\(name), string-length(@\(name)) - \(value.unicodeScalars.count - 1))=\(v)"
        default:
            throw SyntaxError(
                message: "attribute operator '\(op)' is not supported in '\(selector)'; supported: =, ~=, ^=, $=, *=")
        }
    }

    /// An XPath string literal (XPath 1.0 has no escapes: concat() when both quotes occur).
    static func literal(_ text: String) -> String {
        if !text.contains("'") { return "'\(text)'" }
        if !text.contains("\"") { return "\"\(text)\"" }
        return "concat('" + text.replacingOccurrences(of: "'", with: "', \"'\", '") + "')"
    }

    struct Scanner {
        let characters: [Character]
        var index = 0
        init(_ characters: [Character]) { self.characters = characters }
        var atEnd: Bool { index >= characters.count }
        var peek: Character? { atEnd ? nil : characters[index] }
        mutating func advance() { index += 1 }
        mutating func skipSpaces() { while let c = peek, c == " " || c == "\t" { advance() } }
        mutating func identifier() -> String {
            var out = ""
            while let c = peek, c.isLetter || c.isNumber || c == "-" || c == "_" {
                out.append(c)
                advance()
            }
            return out
        }
    }
}
