/// The values of one record gathered field by field, in any order (a source's reader
/// fills in each declared field as it meets it), then packed into a `PackedRow` in one
/// allocation. Text arrives as bytes (`setText`): a value read from a file becomes part
/// of its record without ever being a `String`. One builder serves a run of records.
public struct RowBuilder {
    private var tags: [UInt8] = []
    private var words: [UInt64] = []
    /// The texts set so far, one after another (a text set twice leaves its first bytes
    /// unused: the row is made from the places the words give).
    private var text: [UInt8] = []

    public init() {}

    /// Starts a record of `count` values, all null.
    mutating func reset(count: Int) {
        if tags.count == count {
            // The same count as the record before (every record of a source): zeroed in place.
            tags.withUnsafeMutableBufferPointer { $0.update(repeating: RecordCodec.Tag.null.rawValue) }
        } else {
            tags = [UInt8](repeating: RecordCodec.Tag.null.rawValue, count: count)
            words = [UInt64](repeating: 0, count: count)
        }
        text.removeAll(keepingCapacity: true)
    }

    func tag(at index: Int) -> RecordCodec.Tag { RecordCodec.Tag(rawValue: tags[index])! }

    /// Sets the value at `index` to the text (by default a string) whose bytes are `utf8`.
    mutating func setText(_ index: Int, _ utf8: UnsafeBufferPointer<UInt8>, tag: RecordCodec.Tag = .string) {
        tags[index] = tag.rawValue
        words[index] = UInt64(text.count) << 32 | UInt64(utf8.count)
        text.append(contentsOf: utf8)
    }

    /// Sets the value at `index`.
    mutating func set(_ index: Int, _ value: Value) {
        PackedRow.slot(of: value) { tag, word, utf8 in
            if let utf8 {
                setText(index, utf8, tag: tag)
            } else {
                tags[index] = tag.rawValue
                words[index] = word
            }
        }
    }

    /// The value at `index`, made.
    func value(at index: Int) -> Value {
        let word = words[index]
        let tag = tag(at: index)
        guard tag.hasText else { return PackedRow.value(tag, word, text: UnsafeBufferPointer(start: nil, count: 0)) }
        return text.withUnsafeBufferPointer { text in
            PackedRow.value(
                tag, 0,
                text: UnsafeBufferPointer(rebasing: text[Int(word >> 32)..<Int(word >> 32) + Int(word & 0xFFFF_FFFF)]))
        }
    }

    /// The record's row, with room for `width` values in all, and for `textFieldsAdded`
    /// more texts as long as its longest (up to 64 bytes each).
    func make(width: Int, textFieldsAdded: Int = 0) -> PackedRow {
        var longest = 0
        if textFieldsAdded > 0 {
            for index in tags.indices where tags[index] == RecordCodec.Tag.string.rawValue {
                longest = max(longest, Int(words[index] & 0xFFFF_FFFF))
            }
        }
        let room = textFieldsAdded * min(longest, 64)
        return tags.withUnsafeBufferPointer { tags in
            words.withUnsafeBufferPointer { words in
                text.withUnsafeBufferPointer { text in
                    PackedRow.pack(tags: tags, words: words, text: text, width: width, extraText: room)
                }
            }
        }
    }
}
