/// `normalize: trim`: removes white space around text, optionally collapses inner runs of
/// white space to one space, and turns text left empty into null.
public struct Trim: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "trim",
        summary: "Trim surrounding white space; optionally collapse inner runs to one space; empty text becomes null.",
        keys: [
            CommonKeys.collection,
            KeySpec("field", "the fields to trim (default: every string field)"),
            KeySpec(
                "collapse-whitespace",
                "collapse runs of inner white space (tabs, new lines, doubled spaces) to one space (default false)"),
            KeySpec("empty-as-null", "turn text that is empty after trimming into null (default true)"),
        ],
        example: """
            - normalize: trim
              collection: reviews
              field: [title, comment]
            """)

    public let collection: CollectionID
    let fields: [FieldID]
    let collapse: Bool
    let emptyAsNull: Bool

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        fields = try plan.textFields(config, in: collection)
        collapse = try config.bool("collapse-whitespace") ?? false
        emptyAsNull = try config.bool("empty-as-null") ?? true
    }

    public func change(_ state: RunState) throws -> RecordChange {
        return RecordChange(step: "normalize: trim", parallel: true) { record in
            for field in fields {
                // Clean text (most of it) is judged in place, on the row borrowed from the
                // record, without making its `String`.
                let clean = Record.withRow(of: record) { row in
                    row.tag(at: field.index) == .string
                        && row.withText(at: field.index) {
                            !$0.isEmpty && (collapse ? Self.isClean($0) : Self.hasNoOuterSpace($0))
                        }
                }
                if clean { continue }
                guard case .string(let text) = record[field] else { continue }
                // Most text has nothing to trim or collapse: left as it is, not rewritten.
                if collapse, !text.isEmpty, Self.isClean(text) { continue }
                let result = collapse ? Self.collapsed(text) : Self.trimmed(text)
                record[field] = result.isEmpty && emptyAsNull ? .null : .string(result)
            }
            return []
        }
    }

    /// Text without leading and trailing white space (Unicode white space, including
    /// no-break spaces and new lines).
    public static func trimmed(_ text: String) -> String {
        if let first = text.utf8.first, let last = text.utf8.last, !isSpaceOrNonASCII(first), !isSpaceOrNonASCII(last) {
            return text
        }
        guard let first = text.firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let last = text.lastIndex(where: { !$0.isWhitespace })!
        if first == text.startIndex && text.index(after: last) == text.endIndex { return text }
        return String(text[first...last])
    }

    /// Trimmed, with every inner run of white space replaced by one space.
    public static func collapsed(_ text: String) -> String {
        isClean(text) ? text : collapsedByCharacter(text)
    }

    /// The definition of `collapsed`, one Character at a time (white space as Swift's
    /// `Character.isWhitespace` says).
    static func collapsedByCharacter(_ text: String) -> String {
        var out = ""
        var pendingSpace = false
        for character in text {
            if character.isWhitespace {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(character)
            }
        }
        return out
    }

    /// Text that starts and ends with ASCII other than white space: nothing for `trimmed`
    /// to do (judged from its UTF-8 bytes).
    static func hasNoOuterSpace(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return false }
        return !isSpaceOrNonASCII(first) && !isSpaceOrNonASCII(last)
    }

    /// Bytes that may start or end white space: ASCII white space and any non-ASCII byte
    /// (non-ASCII white space such as U+00A0 exists).
    @inline(__always) static func isSpaceOrNonASCII(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// No white space at either end and none inside but single spaces, judged from the
    /// UTF-8 bytes: nothing for `collapsed` to do. Any byte that may start a white-space
    /// character (Unicode's White_Space: U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028,
    /// U+2029, U+202F, U+205F, U+3000), and a space before a non-ASCII byte (a combining
    /// mark would make the pair one white-space character), send the text the slow way.
    static func isClean(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { isClean($0) } ?? false
    }

    /// `isClean` of the text whose UTF-8 is `bytes`.
    static func isClean(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var previousSpace = true
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                if (0x09...0x0D).contains(byte) { return false }
                if byte == 0x20 {
                    if previousSpace { return false }
                    if index + 1 < bytes.count, bytes[index + 1] >= 0x80 { return false }
                    previousSpace = true
                } else {
                    previousSpace = false
                }
            } else {
                let second = index + 1 < bytes.count ? bytes[index + 1] : 0
                let third = index + 2 < bytes.count ? bytes[index + 2] : 0
                switch (byte, second) {
                case (0xC2, 0x85), (0xC2, 0xA0): return false
                case (0xE1, 0x9A) where third == 0x80: return false
                case (0xE2, 0x80)
                where (0x80...0x8A).contains(third) || third == 0xA8 || third == 0xA9 || third == 0xAF: return false
                case (0xE2, 0x81) where third == 0x9F: return false
                case (0xE3, 0x80) where third == 0x80: return false
                default: previousSpace = false
                }
            }
            index += 1
        }
        return !previousSpace || bytes.isEmpty
    }
}
