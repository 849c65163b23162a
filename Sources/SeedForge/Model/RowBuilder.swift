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

    /// Sets the value at `index` to the string whose UTF-8 is `utf8`.
    mutating func setText(_ index: Int, _ utf8: UnsafeBufferPointer<UInt8>, tag: RecordCodec.Tag = .string) {
        tags[index] = tag.rawValue
        words[index] = UInt64(text.count) << 32 | UInt64(utf8.count)
        text.append(contentsOf: utf8)
    }

    /// Sets the value at `index`.
    mutating func set(_ index: Int, _ value: Value) {
        switch value {
        case .null:
            tags[index] = RecordCodec.Tag.null.rawValue
        case .bool(let flag):
            tags[index] = (flag ? RecordCodec.Tag.true : .false).rawValue
        case .int(let number):
            tags[index] = RecordCodec.Tag.int.rawValue
            words[index] = UInt64(bitPattern: number)
        case .double(let number):
            tags[index] = RecordCodec.Tag.double.rawValue
            words[index] = number.bitPattern
        case .string(var string):
            string.withUTF8 { setText(index, $0) }
        case .decimal(var string):
            string.withUTF8 { setText(index, $0, tag: .decimal) }
        case .array, .object:
            // Kept as the codec writes it, tag included, as a row keeps it.
            let start = text.count
            RecordCodec.encode(value, into: &text)
            tags[index] = RecordCodec.encodedTag(of: value).rawValue
            words[index] = UInt64(start) << 32 | UInt64(text.count - start)
        }
    }

    /// The value at `index`, made.
    func value(at index: Int) -> Value {
        let word = words[index]
        func bytes() -> ArraySlice<UInt8> { text[Int(word >> 32)..<Int(word >> 32) + Int(word & 0xFFFF_FFFF)] }
        switch tag(at: index) {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .int: return .int(Int64(bitPattern: word))
        case .double: return .double(Double(bitPattern: word))
        case .string: return .string(String(decoding: bytes(), as: UTF8.self))
        case .decimal: return .decimal(String(decoding: bytes(), as: UTF8.self))
        case .array, .object:
            return bytes().withUnsafeBufferPointer { buffer in
                var reader = RecordCodec.Reader(buffer)
                return reader.value()
            }
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
