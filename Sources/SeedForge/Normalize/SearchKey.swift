/// `normalize: search-key`: adds a field holding the folded search key of one or more
/// text fields (joined by a space): white space trimmed and collapsed to single spaces,
/// then folded by the documented collation: `Gorkhā` → `gorkha`, `Novyi  Svit` →
/// `novyi svit`. Prefix search and the prefix index compare these keys.
public struct SearchKey: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "search-key",
        summary:
            "Add a field with the folded key of text fields (white space collapsed, case and diacritics folded), for sorting and prefix search.",
        keys: [
            CommonKeys.collection,
            KeySpec("from", required: true, "the text field(s) the key is made of, joined by a space"),
            KeySpec("field", required: true, "the name of the added key field"),
            KeySpec("apostrophes", "keep (default) or drop: Farmers’ and O'Hare give the keys farmers and ohare"),
            KeySpec(
                "punctuation", "keep (default) or space: other punctuation becomes a space, Saint-Malo gives saint malo"
            ),
        ],
        details: #"""
            White space is trimmed and collapsed to single spaces, then the key folded by the
            [collation](#collation) (`Gorkhā` gives `gorkha`, `Novyi  Svit` gives `novyi svit`); null
            when nothing is left. `apostrophes: drop` and `punctuation: space` fold names people type
            without their punctuation; a `prefix-index` on the key records them in its `meta.json`
            (`fold`), and `seedforge query` folds the typed prefix the same way (`l'aq` and `laq` both
            find `L’Aquila`). Sort by the key with `collation: exact` to make prefix ranges contiguous
            for `prefix-index`.
            """#,
        example: """
            - normalize: search-key
              collection: cities
              from: name
              field: searchKey
            """)

    public let collection: CollectionID
    let from: [FieldID]
    let field: FieldID
    let folding: KeyFolding

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        from = try plan.fields(config, key: "from", in: collection)
        let nameNode = try config.require("field")
        field = try plan.addField(nameNode.string("'field'"), type: .string, to: collection, at: nameNode)
        folding = KeyFolding(
            apostrophes: try config.choice(
                "apostrophes", KeyFolding.Apostrophes.self, choices: KeyFolding.Apostrophes.allCases) ?? .keep,
            punctuation: try config.choice(
                "punctuation", KeyFolding.Punctuation.self, choices: KeyFolding.Punctuation.allCases) ?? .keep)
        plan.keyFoldings[PipelinePlan.fieldKey(collection, field)] = folding
    }

    public func change(_ state: RunState) throws -> RecordChange {
        return RecordChange(step: "normalize: search-key", parallel: true) { record in
            if from.count == 1, folding == .none, Self.setASCIIKey(of: from[0], into: field, of: &record) { return [] }
            let text: String?
            if from.count == 1 {
                // One source field (a name): no list of parts to join.
                text = record[from[0]].string
            } else {
                let parts = from.compactMap { record[$0].string }
                text = parts.isEmpty ? nil : parts.joined(separator: " ")
            }
            let key = text.map { Self.key(folding.apply($0)) } ?? ""
            record[field] = key.isEmpty ? .null : .string(key)
            return []
        }
    }

    /// Sets `field` to the key of the text at `source` when that text is ASCII with nothing
    /// to collapse (most names): its key is its lower case (`key`: `Collation.key` lowers
    /// ASCII), made from the row's bytes without a `String`. False, nothing set, for any
    /// other value.
    static func setASCIIKey(of source: FieldID, into field: FieldID, of record: inout Record) -> Bool {
        // The row is read borrowed from the record (no retain and release around each read),
        // so the record still holds its row alone when the key is set. Not text: length 0.
        let length = Record.withRow(of: record) { row in
            row.tag(at: source.index) == .string ? row.withText(at: source.index) { $0.count } : 0
        }
        guard length > 0, length <= 512 else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { key in
            let lowered = Record.withRow(of: record) { row in
                row.withText(at: source.index) { text -> Bool in
                    for byte in text where byte >= 0x80 { return false }
                    guard Trim.isClean(text) else { return false }
                    for index in 0..<length {
                        key[index] = Collation.lowercasedASCII(text[index])
                    }
                    return true
                }
            }
            guard lowered else { return false }
            record.setText(field, UnsafeBufferPointer(key))
            return true
        }
    }

    /// The search key of a text. With `keepingTrailingSpace` (a typed prefix), one trailing
    /// space after the text is kept, so "new " does not match "newark".
    public static func key(_ text: String, keepingTrailingSpace: Bool = false) -> String {
        let collapsed = Trim.collapsed(text)
        let trailing = keepingTrailingSpace && text.last?.isWhitespace == true && !collapsed.isEmpty
        return Collation.key(trailing ? collapsed + " " : collapsed)
    }
}
