/// The values of one record gathered field by field, in any order (a source's reader
/// fills in each declared field as it meets it), then packed into a `PackedRow` in one
/// allocation. Text arrives as bytes (`setText`): a value read from a file becomes part
/// of its record without ever being a `String`. One builder serves a run of records.
///
/// Its slots and texts are raw memory of its own, not arrays: each store into an array
/// checked the array's uniqueness and bounds, and appending a text went through the
/// generic `append(contentsOf:)` (in a profile of the 1M-row CSV bench the builder's
/// setting and copying took about 5% of the run's CPU, about as much as packing the rows).
/// A builder is not copied: a copy would share the memory (every reader keeps one in a
/// local variable and lends it `inout`).
public struct RowBuilder {
    private final class Storage {
        var tags = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
        var words = UnsafeMutablePointer<UInt64>.allocate(capacity: 0)
        var slots = 0
        /// Values of the record being built.
        var count = 0
        /// The texts set so far, one after another (a text set twice leaves its first
        /// bytes unused: the row is made from the places the words give).
        var text = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
        var textCount = 0
        var textCapacity = 0

        deinit {
            tags.deallocate()
            words.deallocate()
            text.deallocate()
        }

        func reserveSlots(_ needed: Int) {
            guard needed > slots else { return }
            tags.deallocate()
            words.deallocate()
            tags = .allocate(capacity: needed)
            words = .allocate(capacity: needed)
            // Zeroed once here, not for every record: a null's word is never read
            // (`PackedRow.pack` stores 0 for it), and every other value sets its own.
            words.initialize(repeating: 0, count: needed)
            slots = needed
        }

        @inline(never)
        func growText(to needed: Int) {
            let larger = max(needed, 2 * textCapacity, 256)
            let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
            moved.initialize(from: text, count: textCount)
            text.deallocate()
            text = moved
            textCapacity = larger
        }
    }

    private let storage = Storage()

    public init() {}

    /// Starts a record of `count` values, all null.
    mutating func reset(count: Int) {
        storage.reserveSlots(count)
        storage.tags.initialize(repeating: RecordCodec.Tag.null.rawValue, count: count)
        storage.count = count
        storage.textCount = 0
    }

    func tag(at index: Int) -> RecordCodec.Tag {
        precondition(index >= 0 && index < storage.count, "a field past the record's values")
        return RecordCodec.Tag(rawValue: storage.tags[index])!
    }

    /// Sets the value at `index` to the text (by default a string) whose bytes are `utf8`.
    @inline(__always)
    mutating func setText(_ index: Int, _ utf8: UnsafeBufferPointer<UInt8>, tag: RecordCodec.Tag = .string) {
        precondition(index >= 0 && index < storage.count, "a field past the record's values")
        let storage = self.storage
        let start = storage.textCount
        if storage.textCapacity - start < utf8.count { storage.growText(to: start + utf8.count) }
        if let base = utf8.baseAddress, utf8.count > 0 {
            (storage.text + start).initialize(from: base, count: utf8.count)
        }
        storage.tags[index] = tag.rawValue
        storage.words[index] = UInt64(start) << 32 | UInt64(utf8.count)
        storage.textCount = start + utf8.count
    }

    /// Sets the value at `index`.
    mutating func set(_ index: Int, _ value: Value) {
        PackedRow.slot(of: value) { tag, word, utf8 in
            if let utf8 {
                setText(index, utf8, tag: tag)
            } else {
                precondition(index >= 0 && index < storage.count, "a field past the record's values")
                storage.tags[index] = tag.rawValue
                storage.words[index] = word
            }
        }
    }

    /// The value at `index`, made.
    func value(at index: Int) -> Value {
        let tag = tag(at: index)
        let word = storage.words[index]
        guard tag.hasText else { return PackedRow.value(tag, word, text: UnsafeBufferPointer(start: nil, count: 0)) }
        return PackedRow.value(
            tag, 0, text: UnsafeBufferPointer(start: storage.text + Int(word >> 32), count: Int(word & 0xFFFF_FFFF)))
    }

    /// The record's row, with room for `width` values in all, and for `textFieldsAdded`
    /// more texts as long as its longest (up to 64 bytes each).
    func make(width: Int, textFieldsAdded: Int = 0) -> PackedRow {
        let storage = self.storage
        let count = storage.count
        var longest = 0
        if textFieldsAdded > 0 {
            for index in 0..<count where storage.tags[index] == RecordCodec.Tag.string.rawValue {
                longest = max(longest, Int(storage.words[index] & 0xFFFF_FFFF))
            }
        }
        let room = textFieldsAdded * min(longest, 64)
        return PackedRow.pack(
            tags: UnsafeBufferPointer(start: storage.tags, count: count),
            words: UnsafeBufferPointer(start: storage.words, count: count),
            text: UnsafeBufferPointer(start: storage.text, count: storage.textCount), width: width, extraText: room)
    }
}
