/// `normalize: repair-text`: undoes mojibake, UTF-8 text that was read as Windows-1252
/// somewhere upstream: `Farmersâ€™ Market` → `Farmers’ Market`, `CafÃ©` → `Café`. Only
/// where certain: a text is repaired when every character maps back to one Windows-1252
/// byte, those bytes are valid UTF-8, and they hold at least one multi-byte sequence;
/// anything else (real `Ã` in Portuguese, text with characters outside Windows-1252,
/// byte runs that are not UTF-8) is left exactly as it is. The manifest's step entry counts
/// the records it `changed`.
public struct RepairText: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "repair-text",
        summary: "Undo mojibake (UTF-8 read as Windows-1252): Farmersâ€™ -> Farmers’, only where certain.",
        keys: [
            CommonKeys.collection,
            KeySpec("field", "the fields to repair (default: every string field)"),
        ],
        details: #"""
            Undoes mojibake, UTF-8 text read as Windows-1252 upstream: `Farmersâ€™ Market` becomes
            `Farmers’ Market`, `CafÃ©` becomes `Café`. Only where certain: a text is repaired when
            every character maps back to one Windows-1252 byte and those bytes are valid UTF-8
            holding a multi-byte sequence; real `Ã` (`SÃO PAULO`), text with characters
            Windows-1252 lacks, or a mix of repaired and right characters stay as they are. The
            manifest's entry for the step counts the records it `changed`.
            """#,
        example: """
            - normalize: repair-text
              collection: shops
              field: [name, address]
            """)

    public let collection: CollectionID
    let fields: [FieldID]

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        fields = try plan.textFields(config, in: collection)
    }

    public func change(_ state: RunState) throws -> RecordChange {
        let changed = Counter()
        return RecordChange(step: "normalize: repair-text", parallel: true, counting: changed) { record in
            var didChange = false
            for field in fields {
                guard case .string(let text) = record[field], let repaired = Self.repaired(text) else { continue }
                record[field] = .string(repaired)
                didChange = true
            }
            if didChange { changed.add(1) }
            return []
        }
    }

    /// The characters Windows-1252 gives bytes 0x80...0x9F (WHATWG: the five unassigned
    /// bytes decode to the C1 control of the same number).
    static let high: [Unicode.Scalar] = [
        "\u{20AC}", "\u{81}", "\u{201A}", "\u{0192}", "\u{201E}", "\u{2026}", "\u{2020}", "\u{2021}",
        "\u{02C6}", "\u{2030}", "\u{0160}", "\u{2039}", "\u{0152}", "\u{8D}", "\u{017D}", "\u{8F}",
        "\u{90}", "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}", "\u{2022}", "\u{2013}", "\u{2014}",
        "\u{02DC}", "\u{2122}", "\u{0161}", "\u{203A}", "\u{0153}", "\u{9D}", "\u{017E}", "\u{0178}",
    ]
    static let byteOf: [Unicode.Scalar: UInt8] = Dictionary(
        uniqueKeysWithValues: high.enumerated().map { ($1, UInt8(0x80 + $0)) })

    /// The repaired text, or nil when the text is not certainly mojibake.
    public static func repaired(_ text: String) -> String? {
        // Mojibake of UTF-8 always holds a lead byte read as Â..ô (U+00C2...U+00F4).
        guard text.unicodeScalars.contains(where: { (0xC2...0xF4).contains($0.value) }) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var multiByte = false
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0..<0x80: bytes.append(UInt8(scalar.value))
            case 0xA0...0xFF:
                bytes.append(UInt8(scalar.value))
                multiByte = true
            default:
                guard let byte = byteOf[scalar] else { return nil }
                bytes.append(byte)
                multiByte = true
            }
        }
        guard multiByte, let decoded = String(validating: bytes, as: UTF8.self), decoded != text else { return nil }
        return decoded
    }
}
