/// `format: json`: the collection as one JSON array, one key per line with two-space
/// indentation (so dataset diffs in git are readable), keys in field order, a final new line.
public struct JSONFormat: FramedFormat, StructuredFormat {
    public static let spec = KindSpec(
        stage: .emit, name: "json",
        summary:
            "A JSON array of objects, indented, keys in field order; `fields:` may write a field under another name or at a JSON Pointer, building nested objects and arrays.",
        keys: OutputKeys.structured + [OutputKeys.filter],
        details: #"""
            Two-space indentation, one key per line (arrays of plain values on one line), keys in
            field order, a final new line. See [Output field layout](#output-field-layout) for
            `fields` entries that move fields. The example writes the honey shops app's shape; the
            map app's cities, `{"country", "name", "_id", "coord": {"lon", "lat"}}`, as
            `pipelines/cities.yml` writes them:

            ```yaml
            - file: cities.json
              collection: cities
              fields: [country, name, {field: id, as: _id}, {field: longitude, at: /coord/lon}, {field: latitude, at: /coord/lat}]
            ```
            """#,
        example: OutputKeys.structuredExample)
    public static let extensions = ["json"]

    /// Where `fields:` places each field; nil: every field under its own name.
    public var layout: FieldLayout?

    public init(layout: FieldLayout? = nil) { self.layout = layout }
    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {}

    public func head(count: Int, fields: [FieldSpec]) -> [UInt8] { Array((count == 0 ? "[]\n" : "[\n").utf8) }

    public func render(_ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID], first: Bool) -> [UInt8] {
        Self.elements(records, fields: fields, ids: ids, layout: layout, first: first)
    }

    public func tail(count: Int) -> [UInt8] { count == 0 ? [] : Array("\n]\n".utf8) }

    func frame(fields: [FieldSpec]) -> RecordFrame? { layout == nil ? Self.frame(names: fields.map(\.name)) : nil }

    /// Each key as it starts its line (`    "name": `): field names are escaped once, not
    /// once per record.
    private static func keys(_ names: [String]) -> [[UInt8]] {
        names.map { name in
            var key = JSONWriter()
            key.append("    ")
            key.writeString(name)
            key.append(": ")
            return key.bytes
        }
    }

    /// The frame of a record written with every field under its name.
    private static func frame(names: [String]) -> RecordFrame {
        let keys = keys(names)
        return RecordFrame(
            separator: Array(",\n".utf8), open: Array("  {\n".utf8),
            fields: keys.indices.map { $0 == 0 ? keys[$0] : Array(",\n".utf8) + keys[$0] },
            close: Array("\n  }".utf8), indent: 2)
    }

    /// The frame of a record written by `layout` when it places fields only in objects
    /// (no array: whether an array is written on one line depends on its values), and for
    /// each of the frame's fields its position in the output's fields. The text between two
    /// values is then fixed, and a record is rendered as one without a layout is, instead of
    /// by walking the layout's tree per record with a copy of the record and of each value
    /// (the shipped cities pipeline's `cities.json` and its 23,256 pages: 15% of the CPU
    /// samples of a rerun, a quarter of them the copies' reference counting).
    static func frame(layout: FieldLayout) -> (frame: RecordFrame, positions: [Int])? {
        var pieces: [[UInt8]] = []
        var indents: [Int?] = []
        var positions: [Int] = []
        // The fixed text since the last value, as `elements` and `FieldLayout.write` write it.
        var text = JSONWriter()
        func walk(_ node: FieldLayout.Node, indent: Int) -> Bool {
            switch node {
            case .value(let position):
                pieces.append(text.bytes)
                text = JSONWriter()
                indents.append(indent)
                positions.append(position)
                return true
            case .object(let members):
                text.append(byte: UInt8(ascii: "{"))
                text.append(byte: 0x0A)
                for (index, member) in members.enumerated() {
                    if index > 0 { text.append(",\n") }
                    text.pad(indent + 1)
                    text.writeString(member.key)
                    text.append(": ")
                    guard walk(member.node, indent: indent + 1) else { return false }
                }
                text.append(byte: 0x0A)
                text.pad(indent)
                text.append(byte: UInt8(ascii: "}"))
                return true
            case .array:
                return false
            }
        }
        let keys = self.keys(layout.members.map(\.key))
        for (position, member) in layout.members.enumerated() {
            if position > 0 { text.append(",\n") }
            text.append(bytes: keys[position])
            guard walk(member.node, indent: 2) else { return nil }
        }
        text.append("\n  }")
        let frame = RecordFrame(
            separator: Array(",\n".utf8), open: Array("  {\n".utf8), fields: pieces, close: text.bytes,
            indents: indents)
        return (frame, positions)
    }

    /// The records as array elements (`  {...}` separated by `,\n`), without brackets;
    /// `first` says whether the first record starts the array (no comma before it).
    /// Without a layout each field is written under its name, exactly as before layouts
    /// existed; with one, each top-level key of the layout and what it holds.
    static func elements(
        _ records: ArraySlice<Record>, fields: [FieldSpec], ids: [FieldID], layout: FieldLayout?, first: Bool
    ) -> [UInt8] {
        Elements(fields: fields, ids: ids, layout: layout).render(records, first: first)
    }

    /// Whole files of records (head, elements, tail), each rendered with one `Elements`
    /// made for all of them: the pages of a `pages` output (23,256 in the shipped cities
    /// rerun, where making a layout's frame for each page was 2.9% of the CPU samples).
    func files(fields: [FieldSpec], ids: [FieldID]) -> (ArraySlice<Record>) -> [UInt8] {
        let elements = Elements(fields: fields, ids: ids, layout: layout)
        let head = self.head(count: 1, fields: fields)
        let tail = self.tail(count: 1)
        // Head, records and tail rendered into one buffer (not three arrays joined into a
        // fourth per page).
        return { records in
            guard !records.isEmpty else { return self.head(count: 0, fields: fields) + self.tail(count: 0) }
            var writer = JSONWriter()
            writer.reserve(head.count + records.count * elements.room + tail.count)
            writer.append(bytes: head)
            elements.render(records, first: true, into: &writer)
            writer.append(bytes: tail)
            return writer.bytes
        }
    }

    /// What renders an output's records as array elements, made once per output: the
    /// frame (with the fields it writes), or for a layout with arrays its keys.
    struct Elements {
        private let frame: RecordFrame?
        /// The field of each of the frame's values.
        private let frameIDs: [FieldID]
        private let layout: FieldLayout?
        private let ids: [FieldID]
        private let keys: [[UInt8]]
        /// Bytes reserved per record.
        let room: Int

        init(fields: [FieldSpec], ids: [FieldID], layout: FieldLayout?) {
            self.layout = layout
            self.ids = ids
            room = fields.count * 24 + 8
            if let layout {
                let framed = JSONFormat.frame(layout: layout)
                frame = framed?.frame
                frameIDs = framed?.positions.map { ids[$0] } ?? []
                keys = framed == nil ? JSONFormat.keys(layout.members.map(\.key)) : []
            } else {
                frame = JSONFormat.frame(names: fields.map(\.name))
                frameIDs = ids
                keys = []
            }
        }

        /// The fields the frame writes, in its order; nil when records are rendered by
        /// walking the layout (it places a field in an array).
        var framedIDs: [FieldID]? { frame == nil ? nil : frameIDs }

        func render(_ records: ArraySlice<Record>, first: Bool) -> [UInt8] {
            var writer = JSONWriter()
            writer.reserve(records.count * room)
            render(records, first: first, into: &writer)
            return writer.bytes
        }

        /// Appends the records' elements to `writer`.
        func render(_ records: ArraySlice<Record>, first: Bool, into writer: inout JSONWriter) {
            var noBounds: [Int] = []
            render(records, first: first, into: &writer, bounds: &noBounds, marking: false)
        }

        /// Appends the records' elements to `writer`, and to `bounds`, for each record,
        /// where its element (`  {...}`, without the separator before it) starts and ends in
        /// `writer`: the bytes of any run of consecutive records are then those between the
        /// first one's start and the last one's end, whatever file they are cut into.
        func render(_ records: ArraySlice<Record>, first: Bool, into writer: inout JSONWriter, bounds: inout [Int]) {
            render(records, first: first, into: &writer, bounds: &bounds, marking: true)
        }

        /// Appends the records' elements to `writer` and their bounds to `bounds` as
        /// `render(_:first:into:bounds:)` does, and each record's rendering by `beside.frame`
        /// to `besideWriter` (the snapshot's lines); only with a frame (`framedIDs`).
        func render(
            _ records: ArraySlice<Record>, first: Bool, into writer: inout JSONWriter, bounds: inout [Int],
            beside: RecordFrame.Beside, into besideWriter: inout JSONWriter
        ) {
            guard let frame else { preconditionFailure("a layout walked per record renders nothing beside it") }
            frame.render(
                records, ids: frameIDs, first: first, into: &writer, bounds: &bounds, beside: beside,
                into: &besideWriter)
        }

        private func render(
            _ records: ArraySlice<Record>, first: Bool, into writer: inout JSONWriter, bounds: inout [Int],
            marking: Bool
        ) {
            if let frame {
                if marking {
                    frame.render(records, ids: frameIDs, first: first, into: &writer, bounds: &bounds)
                } else {
                    frame.render(records, ids: frameIDs, first: first, into: &writer)
                }
                return
            }
            guard let layout else { return }
            var isFirst = first
            for record in records {
                if !isFirst { writer.append(",\n") }
                isFirst = false
                if marking { bounds.append(writer.bytes.count) }
                writer.append("  {\n")
                for (position, member) in layout.members.enumerated() {
                    if position > 0 { writer.append(",\n") }
                    writer.append(bytes: keys[position])
                    layout.write(member.node, record, ids, into: &writer, indent: 2)
                }
                writer.append("\n  }")
                if marking { bounds.append(writer.bytes.count) }
            }
        }
    }
}
