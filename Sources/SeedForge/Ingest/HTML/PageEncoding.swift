/// Decides how to decode a saved page before libxml2 sees it: the charset its `<meta>`
/// declares, checked against its bytes. Valid UTF-8 is read as UTF-8 (a page declaring
/// another charset is then reported); bytes that are not UTF-8 are read with a declared
/// single-byte charset, or as windows-1252 with a finding when the page claimed UTF-8 or
/// nothing.
enum PageEncoding {
    struct Decision {
        let encoding: String
        let finding: (rule: RuleCode, message: String, offset: Int)?
        /// The bytes to parse: the page's own, or transcoded to UTF-8.
        var transcoded: [UInt8]?
    }

    /// Labels browsers read as windows-1252 (WHATWG Encoding), so seedforge does too.
    static let windows1252Labels: Set<String> = [
        "windows-1252", "cp1252", "x-cp1252", "iso-8859-1", "iso8859-1", "latin1", "l1", "us-ascii", "ascii",
        "iso_8859-1", "cp819", "ibm819",
    ]

    static func decide(_ bytes: [UInt8]) -> Decision {
        // A UTF-16 page says so with its byte order mark: read it as UTF-16.
        if bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) {
            let little = bytes[0] == 0xFF
            let units = stride(from: 2, to: bytes.count - 1, by: 2).map { index -> UInt16 in
                little
                    ? UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
                    : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
            }
            return Decision(
                encoding: "UTF-8", finding: nil, transcoded: Array(String(decoding: units, as: UTF16.self).utf8))
        }
        var declared = declaredCharset(bytes)
        if let name = declared, name.hasPrefix("utf-16") || name.hasPrefix("utf-32") || name.hasPrefix("ucs") {
            // A byte page cannot be UTF-16 without a byte order mark (browsers read it as UTF-8).
            declared = nil
        }
        let invalid = firstInvalidUTF8(bytes)
        guard let invalid else {
            if let declared, !isUTF8(declared), bytes.contains(where: { $0 >= 0x80 }) {
                return Decision(
                    encoding: "UTF-8",
                    finding: (
                        .charsetMismatch,
                        "the page declares charset \(declared) but its bytes are UTF-8; read as UTF-8", 0
                    ))
            }
            return Decision(encoding: "UTF-8", finding: nil)
        }
        if let declared, windows1252Labels.contains(declared) {
            return Decision(encoding: "UTF-8", finding: nil, transcoded: windows1252ToUTF8(bytes))
        }
        if let declared, !isUTF8(declared) {
            if HTMLDocument.knowsEncoding(declared) { return Decision(encoding: declared, finding: nil) }
            return Decision(
                encoding: "UTF-8",
                finding: (
                    .charsetUnknown,
                    "the page declares charset \(declared), which seedforge cannot read, and its bytes are not UTF-8; read as windows-1252",
                    invalid
                ),
                transcoded: windows1252ToUTF8(bytes))
        }
        let claim = declared.map { "declares \($0)" } ?? "declares no charset"
        return Decision(
            encoding: "UTF-8",
            finding: (.invalidUTF8, "the page \(claim) but its bytes are not UTF-8; read as windows-1252", invalid),
            transcoded: windows1252ToUTF8(bytes))
    }

    /// The characters windows-1252 puts at 0x80...0x9F (undefined ones kept as C1 controls).
    static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,
        0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D,
        0x017E, 0x0178,
    ]

    /// Windows-1252 bytes as UTF-8 (line breaks stay where they were).
    static func windows1252ToUTF8(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8)
        for byte in bytes {
            if byte < 0x80 {
                out.append(byte)
                continue
            }
            let scalar = byte < 0xA0 ? windows1252High[Int(byte - 0x80)] : UInt32(byte)
            out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
        }
        return out
    }

    static func isUTF8(_ name: String) -> Bool { ["utf-8", "utf8"].contains(name.lowercased()) }

    /// The charset of `<meta charset=...>` or `<meta http-equiv ... content="...; charset=...">`
    /// in the first 4 KB.
    static func declaredCharset(_ bytes: [UInt8]) -> String? {
        let head = String(decoding: bytes.prefix(4096).map { $0 < 0x80 ? $0 : 0x20 }, as: UTF8.self).lowercased()
        guard let range = head.range(of: "charset=") else { return nil }
        var name = ""
        for character in head[range.upperBound...].drop(while: { $0 == "\"" || $0 == "'" || $0 == " " }) {
            guard character.isLetter || character.isNumber || character == "-" || character == "_" else { break }
            name.append(character)
        }
        return name.isEmpty ? nil : name
    }

    /// Offset of the first byte that is not valid UTF-8, or nil.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            guard let (count, low, high) = UTF8Lead.sequence(lead) else { return index }
            for step in 1...count {
                guard index + step < bytes.count, bytes[index + step] >= (step == 1 ? low : 0x80),
                    bytes[index + step] <= (step == 1 ? high : 0xBF)
                else { return index }
            }
            index += count + 1
        }
        return nil
    }
}
