import Foundation

/// `normalize: unicode`: puts text in Unicode NFC (so `é` typed two ways is one string)
/// and removes control characters (tabs and new lines become spaces).
public struct UnicodeNormalize: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "unicode",
        summary: "Unicode NFC normalisation; control characters removed (tab, CR and LF become a space).",
        keys: [
            CommonKeys.collection,
            KeySpec("field", "the fields to normalise (default: every string field)"),
            KeySpec(
                "strip-control",
                #"remove control characters: tab, CR and LF become a space, others are removed (default true)"#
            ),
        ],
        details: #"""
            Text is put in Unicode NFC.
            """#,
        example: """
            - normalize: unicode
              collection: shops
            """)

    public let collection: CollectionID
    let fields: [FieldID]
    let stripControl: Bool

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        fields = try plan.textFields(config, in: collection)
        stripControl = try config.bool("strip-control") ?? true
    }

    public func change(_ state: RunState) throws -> RecordChange {
        return RecordChange(step: "normalize: unicode", parallel: true) { record in
            for field in fields {
                // Printable ASCII is judged in place, on the row borrowed from the record,
                // without making its `String`.
                let printable = Record.withRow(of: record) { row in
                    row.tag(at: field.index) == .string && row.withText(at: field.index, Self.isPrintableASCII)
                }
                if printable { continue }
                guard case .string(let text) = record[field], !Self.isPrintableASCII(text) else { continue }
                record[field] = .string(Self.normalized(text, stripControl: stripControl))
            }
            return []
        }
    }

    /// Text of printable ASCII only (most names) has no control character and is NFC.
    static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(isPrintableASCII) ?? false
    }

    /// `isPrintableASCII` of the text whose UTF-8 is `bytes`.
    static func isPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// Unicode's control characters (general category Cc) are exactly U+0000–U+001F and
    /// U+007F–U+009F: a range check, not a property look-up per character.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    public static func normalized(_ text: String, stripControl: Bool) -> String {
        var result = text
        if stripControl, result.unicodeScalars.contains(where: isControl) {
            var scalars = String.UnicodeScalarView()
            for scalar in result.unicodeScalars {
                if isControl(scalar) {
                    if scalar == "\t" || scalar == "\n" || scalar == "\r" { scalars.append(" ") }
                } else {
                    scalars.append(scalar)
                }
            }
            result = String(scalars)
        }
        return nfc(result)
    }

    /// NFC. Text with no character at or above U+0300 is already in NFC (every code
    /// point below it is NFC-stable), which covers most Latin-script data.
    public static func nfc(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy({ $0.value < 0x300 }) { return text }
        return text.precomposedStringWithCanonicalMapping
    }

}
