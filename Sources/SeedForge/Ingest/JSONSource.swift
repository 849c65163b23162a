import Foundation

/// `kind: json`: a JSON array of records, or an array inside a larger document found by
/// the JSON Pointer under `records:` (for API responses like `{"results": [...]}`).
/// A syntax error anywhere fails the source with the file, line and column, and so does a
/// value or record over the pipeline's `limits` (with its JSON Pointer).
public struct JSONSource: SourceKind {
    public static let spec = KindSpec(
        stage: .ingest, name: "json",
        summary: "A JSON document holding an array of record objects.",
        keys: SourceKeys.common + [
            KeySpec(
                "records",
                #"JSON Pointer of the array of records inside the document, e.g. `/results` (or, with `key-field`, of an object keyed by id); default: the document itself. JSON Pointer has no wildcards: a `*` step (`/*/ratings`) is a definition error, here and in a field's `from`"#
            ),
            KeySpec(
                "key-field",
                #"the records are the values of an object keyed by id (`{"3040051": {...}, ...}`) at `records` (or the whole document): each record holds its key as this field (e.g. `geonameid`), which `fields` declares"#
            ),
            KeySpec(
                "page-number",
                #"(with `records`) JSON Pointer of the page number in each page file of a paginated dump, e.g. `/page`. Records are then read in page-number order, and the pages must be exactly 1...N: a missing page, a page number twice, a page file without a whole number there, or a claimed count far beyond the files found fails the run (exit 1)"#
            ),
            KeySpec(
                "page-count",
                #"(with `page-number`) JSON Pointer of the total page count, e.g. `/total_pages`; every page must agree, and it sets N"#
            ),
            KeySpec(
                "next-page-token",
                #"(with `records`) JSON Pointer of a token naming the next page, e.g. `/next_page_token` of a places API's saved responses. `path` is then the first page (a glob is a definition error); each page's token leads to the file `next-page-file` beside it, until a page has no token (absent, null or `""`)"#
            ),
            KeySpec(
                "next-page-file",
                #"(with `next-page-token`) the file a token names, `{token}` replaced by the token or `{token-sha256}` by its SHA-256 in lower-case hex (default `{token}.json`); a plain file name, looked for in the folder of the page holding the token. Real API tokens run to hundreds of characters, beyond the 255 bytes a file name may have: save such pages as `SHA256(token).json` and use `"{token-sha256}.json"`"#
            ),
            KeySpec(
                "max-pages",
                #"(with `next-page-token`) most pages to follow (default 1000)"#
            ),
            FollowCheck.MissingPage.key,
            KeySpec(
                "expect",
                #"(with `records`) values each file must hold, `{JSON Pointer: value or [values]}`, e.g. `{/status: [OK, ZERO_RESULTS]}` for saved API responses: a file holding anything else (a saved `OVER_QUERY_LIMIT` error) fails the run with the file, line and value found, and the previous outputs stay (`validate` reports it as a `source` finding and checks the other files). Checked before the records are looked for, so an error response without `results` still says what it is; a value that is absent counts as null"#
            ),
        ],
        details: #"""
            With `key-field`, the records may be the values of an object keyed by id, as GeoNames
            city lists are (`{"3040051": {"name": "les Escaldes", ...}, ...}`, at `records` or the
            whole document): each record holds its key as the field `key-field` names, which
            `fields` declares like any other (a numeric field takes the key as a number). A record
            that holds that field already must hold its key there (else it is rejected with rule
            `key-field`); a key written twice rejects the second record (`duplicate-key`); findings
            point at the key: `/3040051/name`. Keyed objects are read on one thread:

            ```yaml
            cities:
              kind: json
              path: ../Fixtures/geonames/cities-keyed.json
              key-field: geonameid
              id: id
              fields:
                id: {type: integer, from: /geonameid}
                name: string
            ```

            A `json` source must hold an array of objects (or one at `records`); a syntax error anywhere
            fails the run with the file, line and column, and the previous outputs stay. A broken
            `next-page-token` chain fails the run too, pointing at the token: a token that is not text,
            holds `/`, makes a file name longer than 255 bytes, or names a file that was not saved (the
            pages after it would be lost silently otherwise; `validate` reports it and keeps checking),
            unless the source says `on-missing-page: warn`. A token leading back to a page read already
            (a loop) or past `max-pages` stops the following with a `next-link` warning, keeping what
            was read. The file is read as UTF-8 (a byte order mark is skipped); invalid UTF-8, control
            characters inside strings and nesting deeper than 256 levels are rejected; a file, value or
            record over the pipeline's [`limits`](#input-limits) fails the file.
            """#,
        example: """
            shops:
              kind: json
              path: ../Fixtures/honey-shops/shops.json
              id: id
              fields:
                id: string
                name: string
                latitude: {type: number, from: /coordinates/0}
            """)

    let recordsPath: FieldPath?
    /// For records keyed by id in an object: the field each record holds its key as.
    let keyField: String?
    let pageNumberPath: FieldPath?
    let pageCountPath: FieldPath?
    let nextTokenPath: FieldPath?
    let nextFileTemplate: String
    let maxPages: Int
    public let onMissingPage: FollowCheck.MissingPage
    /// Values a file must hold at these pointers (an API response's status).
    let expected: [(path: FieldPath, values: [Value])]

    public init(config: ConfigMap) throws {
        func pointer(_ key: String, _ example: String) throws -> FieldPath? {
            guard let node = config[key] else { return nil }
            let text = try node.string("'\(key)'")
            guard text.hasPrefix("/"), let path = FieldPath(parsing: text) else {
                throw node.error("'\(key)' must be a JSON Pointer such as \(example)")
            }
            if let problem = path.wildcardProblem { throw node.error("'\(key)': \(problem)") }
            return path
        }
        recordsPath = try pointer("records", "/results")
        if let node = config["key-field"] {
            let name = try node.string("'key-field'")
            let fields = (try? FieldMapping.load(config, what: "the source").fields) ?? []
            if name.isEmpty || name.contains("/") {
                throw node.error("'key-field' must be a field name such as geonameid")
            }
            if !fields.isEmpty, !fields.contains(where: { $0.sourcePath == FieldPath(components: [.key(name)]) }) {
                throw node.error(
                    "'key-field: \(name)' gives each record its key as the field '\(name)', but no field takes it: declare one under 'fields' (\(name): integer, or id: {type: integer, from: /\(name)})"
                )
            }
            keyField = name
        } else {
            keyField = nil
        }
        pageNumberPath = try pointer("page-number", "/page")
        pageCountPath = try pointer("page-count", "/total_pages")
        nextTokenPath = try pointer("next-page-token", "/next_page_token")
        var expected: [(FieldPath, [Value])] = []
        if let node = config["expect"] {
            for (keyNode, valueNode) in try node.mapping("'expect'").mapping {
                let key = ConfigNode(node: keyNode, file: config.file)
                let text = try key.string("a JSON Pointer")
                guard text.hasPrefix("/"), let path = FieldPath(parsing: text) else {
                    throw key.error("the keys of 'expect' are JSON Pointers such as /status, found '\(text)'")
                }
                let value = ConfigNode(node: valueNode, file: config.file)
                var entries = [value]
                if case .sequence = valueNode { entries = try value.list("the values expected at \(text)") }
                let values = try entries.map { try $0.value() }
                if values.isEmpty { throw value.error("'expect' at \(text) lists no value") }
                expected.append((path, values))
            }
            if expected.isEmpty { throw node.error("'expect' names no JSON Pointer") }
            if config["records"] == nil {
                throw node.error(
                    "'expect' needs 'records': the values it checks sit beside the array of records in an object")
            }
        }
        self.expected = expected
        nextFileTemplate = try config.string("next-page-file") ?? "{token}.json"
        maxPages = try config.int("max-pages") ?? 1000
        if let node = config["next-page-file"] {
            guard nextTokenPath != nil else { throw node.error("'next-page-file' needs 'next-page-token'") }
            guard nextFileTemplate.contains("{token}") || nextFileTemplate.contains("{token-sha256}"),
                !nextFileTemplate.contains("/")
            else {
                throw node.error(
                    "'next-page-file' must be a file name holding {token} or {token-sha256}, such as \"{token-sha256}.json\" (it is looked for beside the page holding the token)"
                )
            }
        }
        onMissingPage = try FollowCheck.MissingPage.parse(
            config, follows: nextTokenPath != nil, following: "next-page-token")
        if let node = config["max-pages"] {
            guard nextTokenPath != nil else { throw node.error("'max-pages' needs 'next-page-token'") }
            if maxPages < 1 { throw node.error("'max-pages' must be at least 1") }
        }
        if let node = config["next-page-token"] {
            if let path = try config.string("path"), path.contains(where: { "*?[".contains($0) }) {
                throw node.error(
                    "'next-page-token' follows tokens from one first page: give 'path' a single file, not the glob '\(path)'"
                )
            }
            if recordsPath == nil {
                throw node.error(
                    "'next-page-token' needs 'records': the token sits beside the array of records in an object")
            }
        }
        if pageNumberPath == nil, let node = config["page-count"] {
            throw node.error("'page-count' needs 'page-number' too")
        }
        if pageNumberPath != nil, recordsPath == nil, let node = config["page-number"] {
            throw node.error(
                "'page-number' needs 'records': page metadata sits beside the array of records in an object")
        }
    }

    /// A plain array of records can be read in byte ranges (a keyed object's keys, and a
    /// page's number, belong to the whole file).
    public var readsByteRanges: Bool { keyField == nil && pageNumberPath == nil }
    public var ordersRecordsByPage: Bool { pageNumberPath != nil }

    public func read(_ text: SourceText, into sink: inout IngestSink) throws -> PageMetadata? {
        let limits = sink.limits
        return try text.bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer, maxValueBytes: limits.maxValueBytes)
            reader.skipByteOrderMark()
            let documentStart = reader.position
            guard reader.peek() != nil else {
                throw SourceError(text, offset: reader.position, "the file is empty; expected a JSON array of records")
            }
            // The whole document's syntax is checked before any record is taken, so a
            // syntax error is never half-read: the records array by parsing it (on several
            // threads), the rest of the document around it by skipping.
            func checkDocument(except checked: Range<Int>? = nil) throws {
                reader.position = documentStart
                reader.checked = checked
                defer { reader.checked = nil }
                do {
                    try reader.skipValue()
                    try Self.expectEnd(&reader, text)
                } catch let error as JSONSyntaxError {
                    throw SourceError(text, offset: error.offset, error.message, rule: .jsonSyntax)
                } catch let error as JSONLimitError {
                    throw limits.valueTooLong(text, error, from: documentStart)
                }
            }
            var pointer = ""
            if let recordsPath {
                reader.position = documentStart
                if reader.locate(recordsPath) == nil {
                    try checkDocument()
                    // An error response may lack the records: its status says more.
                    try checkExpected(&reader, text, documentStart)
                    throw SourceError(
                        text, offset: documentStart,
                        "no value at \(recordsPath) (the 'records' pointer) in this document")
                }
                pointer = recordsPath.description
            }
            if let keyField, reader.peek() == UInt8(ascii: "{") {
                return try readKeyed(
                    buffer, text, at: reader.position, keyField: keyField, pointer: pointer,
                    documentStart: documentStart, sink: &sink, checkDocument: { try checkDocument(except: $0) })
            }
            guard let first = reader.peek(), first == UInt8(ascii: "[") else {
                if recordsPath != nil {
                    let position = reader.position
                    try checkDocument()
                    try checkExpected(&reader, text, documentStart)
                    reader.position = position
                }
                let found = reader.peek() == UInt8(ascii: "{") ? "an object" : "something else"
                let hint =
                    keyField != nil
                    ? " (key-field reads the records from an object keyed by id)"
                    : found == "an object"
                        ? (recordsPath == nil
                            ? "; if the records are inside it, set 'records' to their JSON Pointer (e.g. records: /results); if they are its values, keyed by id, set 'key-field'"
                            : "; if the records are its values, keyed by id, set 'key-field' (e.g. key-field: geonameid)")
                        : ""
                throw SourceError(
                    text, offset: reader.position,
                    "expected a JSON array of records\(pointer.isEmpty ? "" : " at \(pointer)"), found \(found)\(hint)")
            }
            text.recordsPointer = pointer
            let arrayStart = reader.position
            // What follows the records' array: the end of the file, or the rest of the document
            // around it and the keys it must hold.
            func checkAfterArray(_ arrayEnd: Int) throws {
                if recordsPath == nil {
                    reader.position = arrayEnd
                    try Self.expectEnd(&reader, text)
                } else {
                    try checkDocument(except: arrayStart..<arrayEnd)
                    try checkExpected(&reader, text, documentStart)
                }
            }
            // A shard's byte range (see `Shard`) is read as a large file is: the whole
            // array checked, then the range's records parsed a window at a time.
            if let window = sink.windowBytes(forArrayOf: buffer.count - arrayStart)
                ?? (sink.byteRange != nil ? 32 << 20 : nil)
            {
                // A file large for the memory limit: checked whole first (a syntax error
                // is never half-read), then read a window at a time, each window's records
                // handed over (and spilled) before the next is parsed, its pages released.
                // When an error fails the run (`IngestSink.failsRun`), the parse is the
                // check: records taken before an error go nowhere, and on an error the
                // whole-file check runs then, so the error is the one it would have given.
                var rangeStart: (offset: Int, index: Int)?
                func checkWhole() throws -> PageMetadata? {
                    do {
                        let (arrayEnd, found) = try Self.checkArray(
                            buffer, text, arrayStart: arrayStart, limits: limits,
                            findingFrom: sink.byteRange?.lowerBound,
                            threads: sink.threads, window: Self.checkWindow(parseWindow: window))
                        rangeStart = found
                        try checkAfterArray(arrayEnd)
                    } catch let error as JSONSyntaxError {
                        // The first error in document order, as a check of the whole file finds it.
                        if recordsPath != nil { try checkDocument() }
                        throw SourceError(text, offset: error.offset, error.message, rule: .jsonSyntax)
                    } catch let error as JSONLimitError {
                        if recordsPath != nil { try checkDocument() }
                        throw limits.valueTooLong(text, error, from: documentStart)
                    }
                    return try pageMetadata(&reader, text, documentStart)
                }
                let unchecked = sink.failsRun && sink.byteRange == nil
                var page: PageMetadata?
                if !unchecked { page = try checkWhole() }
                do {
                    if let range = sink.byteRange {
                        guard var from = rangeStart?.offset, from < range.upperBound else { return page }
                        sink.firstIndex = rangeStart!.index
                        while true {
                            var chunk = Self.parseChunk(
                                buffer, text, from: from, first: false, stop: min(range.upperBound, from + window),
                                mapping: sink.mapping, limits: limits)
                            if let error = chunk.error { throw error }
                            try sink.merge([chunk.takeEntries()], of: text)
                            guard let next = chunk.stoppedAt, next < range.upperBound else { break }
                            text.bytes.releaseResidentPages(from..<next)
                            from = next
                        }
                    } else {
                        var arrayEnd = arrayStart
                        // The file's hash a window at a time, beside each window's parse
                        // (`InputDigest.advance`), not whole beside the first window's records.
                        let beside = sink.alongside.map { digest in
                            { [count = buffer.count] (reached: Int) in digest.advance(reached: reached, of: count) }
                        }
                        sink.alongside = nil
                        do {
                            try Self.parseInWindows(
                                buffer, text, arrayStart: arrayStart, window: window, mapping: sink.mapping,
                                threads: sink.threads, limits: limits, beside: beside
                            ) { chunks, range in
                                try sink.merge(consume chunks, of: text)
                                text.bytes.releaseResidentPages(range)
                                arrayEnd = range.upperBound
                            }
                            if unchecked {
                                // What the check of the whole file does after the array.
                                try checkAfterArray(arrayEnd)
                                page = try pageMetadata(&reader, text, documentStart)
                            }
                        } catch {
                            // The check's error comes first, as when it ran before the parse.
                            if unchecked { _ = try checkWhole() }
                            throw error
                        }
                    }
                } catch let error as ValueTooLong {
                    throw limits.valueTooLong(text, error.error, from: documentStart, record: error.record)
                } catch let error as RecordTooLarge {
                    throw limits.recordTooLarge(text, offset: error.offset, length: error.length, from: documentStart)
                } catch let error as JSONSyntaxError {
                    throw SourceError(text, offset: error.offset, error.message, rule: .jsonSyntax)
                } catch let error as JSONLimitError {
                    throw limits.valueTooLong(text, error, from: documentStart)
                }
                return page
            }
            let chunks: [[IngestEntry]]
            do {
                let (parsed, arrayEnd) = try Self.parseElements(
                    buffer, text, arrayStart: arrayStart, mapping: sink.mapping, threads: sink.threads, limits: limits)
                chunks = consume parsed
                try checkAfterArray(arrayEnd)
            } catch let error as JSONSyntaxError {
                // The first error in document order, as a check of the whole file finds it.
                if recordsPath != nil { try checkDocument() }
                throw SourceError(text, offset: error.offset, error.message, rule: .jsonSyntax)
            } catch let error as JSONLimitError {
                throw limits.valueTooLong(text, error, from: documentStart)
            } catch let error as ValueTooLong {
                throw limits.valueTooLong(text, error.error, from: documentStart, record: error.record)
            } catch let error as RecordTooLarge {
                throw limits.recordTooLarge(text, offset: error.offset, length: error.length, from: documentStart)
            }
            // The page metadata is checked before any record is taken, so a file that
            // fails contributes no record at all.
            let page = try pageMetadata(&reader, text, documentStart)
            try sink.merge(consume chunks, of: text)
            return page
        }
    }

    /// The page number and count of a paginated file (nil when the source has none).
    func pageMetadata(_ reader: inout JSONReader, _ text: SourceText, _ documentStart: Int) throws -> PageMetadata? {
        guard let pageNumberPath else { return nil }
        let number = try Self.pageValue(pageNumberPath, "page-number", &reader, text, documentStart)
        let count = try pageCountPath.map { try Self.pageValue($0, "page-count", &reader, text, documentStart) }
        reader.position = documentStart
        let offset = reader.locate(pageNumberPath) ?? documentStart
        return PageMetadata(
            file: text.displayPath, number: number, count: count,
            location: text.location(ofOffset: offset, pointer: pageNumberPath.description))
    }

    /// Checks the syntax of the array at `arrayStart` element by element, releasing the
    /// file's pages behind it every 32 MiB (a large file is checked without being brought
    /// into memory whole); returns the position after its closing bracket, and the offset
    /// and index of the first element starting at or after `findingFrom`.
    static func checkArray(
        _ buffer: UnsafeBufferPointer<UInt8>, _ text: SourceText, arrayStart: Int, limits: InputLimits,
        findingFrom: Int? = nil, threads: Threads? = nil, window: Int = 64 << 20
    ) throws -> (end: Int, found: (offset: Int, index: Int)?) {
        if findingFrom == nil, let threads, threads.count > 1,
            let end = checkArrayInPieces(
                buffer, text, arrayStart: arrayStart, limits: limits, threads: threads, window: window)
        {
            return (end, nil)
        }
        var reader = JSONReader(bytes: buffer, start: arrayStart + 1, maxValueBytes: limits.maxValueBytes)
        var pass = FileBytes.ReleasingPass(text.bytes, from: arrayStart)
        var first = true
        var index = 0
        var found: (offset: Int, index: Int)?
        while try reader.nextArrayElement(first: first) {
            first = false
            if let findingFrom, found == nil {
                reader.skipWhitespace()
                if reader.position >= findingFrom { found = (reader.position, index) }
            }
            try reader.skipValue()
            index += 1
            pass.reached(reader.position)
        }
        pass.end(at: reader.position)
        return (reader.position, found)
    }

    /// The bytes of a large array checked at a time on every core: four of the windows it is
    /// then parsed in (a thirty-second of the memory limit each, at least 1 MiB), at most
    /// 64 MiB. A window's mapped pages stay resident until it is checked: with 64 MiB
    /// whatever the limit, 1M cities under `--memory-limit 4MiB` peaked at 92 MiB, 65 MiB of
    /// it the input's pages. Limits of 512 MiB and more keep 64 MiB.
    static func checkWindow(parseWindow: Int) -> Int { min(64 << 20, 4 * parseWindow) }

    /// Checks the array on every core: `window` bytes at a time, cut at guessed element boundaries
    /// into one piece per thread, each piece's elements skipped (checked) on its own
    /// thread, the window's pages released after it. Returns the position after the
    /// closing bracket, or nil when a piece found an error or did not end where the next
    /// began (a guess inside a string): the caller then checks the array in one pass,
    /// which finds the first error exactly as before.
    static func checkArrayInPieces(
        _ buffer: UnsafeBufferPointer<UInt8>, _ text: SourceText, arrayStart: Int, limits: InputLimits,
        threads: Threads, window: Int = 64 << 20
    ) -> Int? {
        var start = arrayStart + 1
        while true {
            let pieceBytes = window / threads.count
            var bounds = [start]
            for piece in 1...threads.count {
                let guess = start + pieceBytes * piece
                guard guess < buffer.count, let split = elementStart(near: guess, in: buffer), split > bounds.last!
                else { break }
                bounds.append(split)
            }
            let pieces = max(1, bounds.count - 1)
            let stops: [Int?] = (0..<pieces).map { $0 + 1 < bounds.count ? bounds[$0 + 1] : nil }
            let ends = threads.run(pieces) { piece in
                checkPiece(buffer, from: bounds[piece], stop: stops[piece], limits: limits)
            }
            guard ends.indices.allSatisfy({ ends[$0] != nil && (stops[$0] == nil || ends[$0] == stops[$0]) })
            else { return nil }
            let end = ends[pieces - 1]!
            text.bytes.releaseResidentPages(start..<end)
            guard stops[pieces - 1] != nil else { return end }
            start = end
        }
    }

    /// Skips the array elements from `from` (an element's start, or the byte after the
    /// array's opening bracket) up to the element starting at `stop` (returned), or through
    /// the closing bracket when `stop` is nil (the position after it returned); nil on an
    /// error, or when no element starts at `stop`.
    static func checkPiece(_ buffer: UnsafeBufferPointer<UInt8>, from: Int, stop: Int?, limits: InputLimits) -> Int? {
        var reader = JSONReader(bytes: buffer, start: from, maxValueBytes: limits.maxValueBytes)
        // No comma before a piece's first element: it starts at the element itself.
        var isFirst = true
        do {
            while try reader.nextArrayElement(first: isFirst) {
                isFirst = false
                try reader.skipValue()
                guard let stop else { continue }
                let after = reader.position
                reader.skipWhitespace()
                if reader.peek() == UInt8(ascii: ",") {
                    reader.position += 1
                    reader.skipWhitespace()
                    if reader.position == stop { return stop }
                    if reader.position > stop { return nil }
                } else if reader.position >= stop {
                    return nil
                }
                reader.position = after
            }
            return stop == nil ? reader.position : nil
        } catch {
            return nil
        }
    }

    /// Reads the elements of a (syntax-checked) array a window of about `window` bytes at
    /// a time: each window is cut at guessed element boundaries into pieces (a few per
    /// thread) and parsed on all of them (a wrong guess reads the window again in one piece), and
    /// `take` gets its entries, in order, and the bytes it covered, before the next window.
    /// `beside(end)` runs as one more task of each window's parse, with the offset the
    /// window ends at (the buffer's end for the last one).
    static func parseInWindows(
        _ buffer: UnsafeBufferPointer<UInt8>, _ text: SourceText, arrayStart: Int, window: Int,
        mapping: FieldMapping, threads: Threads, limits: InputLimits, beside: ((Int) -> Void)? = nil,
        take: (consuming [[IngestEntry]], Range<Int>) throws -> Void
    ) throws {
        var start = arrayStart
        var first = true
        // Several pieces a thread, each thread taking the next: with one piece a thread, the
        // thread done first waited for the other (at 20M cities under 2 GiB, one thread
        // parsed alone for 4.5% of ingest's wall time).
        let pieceCount = threads.count > 1 ? threads.count * Parallel.piecesPerThread : 1
        // Made now on every core, not by the first finding's location on one thread while
        // every other thread needing a location waits (1.9 GB at 20M cities).
        if threads.count > 1 { text.findLineStarts(threads: threads) }
        while true {
            let pieceBytes = max(1 << 16, window / pieceCount)
            var bounds = [start]
            for piece in 1...pieceCount {
                let guess = start + pieceBytes * piece
                guard guess < buffer.count, let split = elementStart(near: guess, in: buffer), split > bounds.last!
                else { break }
                bounds.append(split)
            }
            // The window ends at its last boundary, or at the array's end.
            let stops: [Int?] = bounds.indices.map { $0 + 1 < bounds.count ? bounds[$0 + 1] : nil }
            let pieces = bounds.count > 1 ? bounds.count - 1 : 1
            // The task beside goes first: the longest, it is then not the last one left.
            let reached = bounds.count > 1 ? bounds[bounds.count - 1] : buffer.count
            let tasks = beside == nil ? 0 : 1
            var results = threads.run(tasks + pieces) { task -> Chunk? in
                if task < tasks {
                    beside?(reached)
                    return nil
                }
                let piece = task - tasks
                return parseChunk(
                    buffer, text, from: bounds[piece], first: first && piece == 0, stop: stops[piece],
                    mapping: mapping, limits: limits)
            }.compactMap { $0 }
            let aligned = results.indices.allSatisfy { piece in
                results[piece].error == nil && results[piece].stoppedAt == stops[piece]
            }
            if !aligned {
                let end = pieces < bounds.count ? bounds[pieces] : nil
                results = [
                    parseChunk(buffer, text, from: start, first: first, stop: end, mapping: mapping, limits: limits)
                ]
                if let error = results[0].error { throw error }
            }
            let stoppedAt = results[results.count - 1].stoppedAt
            let end = stoppedAt ?? results[results.count - 1].end
            // Taken out of the results, so `take` holds the only reference to them.
            let entries = results.indices.map { results[$0].takeEntries() }
            try take(entries, start..<end)
            guard let next = stoppedAt else { return }
            start = next
            first = false
        }
    }

    /// Reads records that are the values of an object keyed by id: each record gets its
    /// key as the field `keyField` (a record that holds another value there, or a key
    /// written twice, is rejected), and its pointer is its key (`/3040051/name`).
    func readKeyed(
        _ buffer: UnsafeBufferPointer<UInt8>, _ text: SourceText, at objectStart: Int, keyField: String,
        pointer: String, documentStart: Int, sink: inout IngestSink, checkDocument: (Range<Int>?) throws -> Void
    ) throws -> PageMetadata? {
        let limits = sink.limits
        var reader = JSONReader(bytes: buffer, start: objectStart, maxValueBytes: limits.maxValueBytes)
        let mapping = sink.mapping
        let keyType =
            mapping.fields.first { $0.sourcePath == FieldPath(components: [.key(keyField)]) }?.type ?? .string
        text.recordsPointer = pointer
        var entries: [IngestEntry] = []
        text.recordKeys = []
        var seen: Set<String> = []
        do {
            if try reader.enterObject(depth: 0) {
                repeat {
                    reader.skipWhitespace()
                    let keyOffset = reader.position
                    guard reader.peek() == UInt8(ascii: "\"") else { throw reader.unexpected(expected: "a quoted key") }
                    let key = try reader.parseString()
                    try reader.expect(UInt8(ascii: ":"), "':' after key")
                    reader.skipWhitespace()
                    let offset = reader.position
                    let origin = Origin(source: text, offset: offset, index: text.recordKeys!.count)
                    text.recordKeys!.append(key)
                    var value = try reader.readValue()
                    if reader.position - offset > limits.maxRecordBytes {
                        throw RecordTooLarge(offset: offset, length: reader.position - offset)
                    }
                    var findings: [Finding] = []
                    if !seen.insert(key).inserted {
                        findings.append(
                            Finding(
                                rule: .duplicateKey,
                                message:
                                    "key '\(key)' appears more than once in the object of records; which record is meant is ambiguous",
                                location: text.location(ofOffset: keyOffset, pointer: origin.pointer)))
                    }
                    if case .object(var object) = value {
                        let keyValue = Self.keyValue(key, as: keyType)
                        if let held = object[keyField], held.joinKey != keyValue.joinKey {
                            let path = FieldPath(components: [.key(keyField)])
                            findings.append(
                                Finding(
                                    rule: .keyField,
                                    message:
                                        "the record holds \(keyField) \(JSONWriter.compact(held)), but its key is '\(key)'",
                                    location: origin.location(of: path), field: keyField, value: held))
                        } else {
                            object[keyField] = keyValue
                            value = .object(object)
                        }
                    }
                    if findings.isEmpty, reader.duplicateKeyOffset == nil {
                        entries.append(IngestEntry.make(value, origin: origin, duplicateKey: nil, mapping: mapping))
                    } else if findings.isEmpty {
                        entries.append(.deferred(value, origin, duplicateKey: reader.duplicateKeyOffset))
                    } else {
                        entries.append(.withFindings(value, origin, findings))
                    }
                } while try reader.nextMember()
            }
            let objectEnd = reader.position
            try checkDocument(objectStart..<objectEnd)
            try checkExpected(&reader, text, documentStart)
        } catch let error as JSONSyntaxError {
            try checkDocument(nil)
            throw SourceError(text, offset: error.offset, error.message, rule: .jsonSyntax)
        } catch let error as JSONLimitError {
            throw limits.valueTooLong(text, error, from: documentStart)
        } catch let error as RecordTooLarge {
            throw limits.recordTooLarge(text, offset: error.offset, length: error.length, from: documentStart)
        }
        var page: PageMetadata?
        if let pageNumberPath {
            let number = try Self.pageValue(pageNumberPath, "page-number", &reader, text, documentStart)
            let count = try pageCountPath.map { try Self.pageValue($0, "page-count", &reader, text, documentStart) }
            reader.position = documentStart
            let offset = reader.locate(pageNumberPath) ?? documentStart
            page = PageMetadata(
                file: text.displayPath, number: number, count: count,
                location: text.location(ofOffset: offset, pointer: pageNumberPath.description))
        }
        try sink.merge([consume entries], of: text)
        return page
    }

    /// A record's key as the value of the field that takes it: a number for a numeric
    /// field when the key is one ("3040051" → 3040051), else the key's text.
    static func keyValue(_ key: String, as type: FieldType) -> Value {
        guard type == .integer || type == .number || type == .decimal || type == .any else { return .string(key) }
        let number = Array(key.utf8).withUnsafeBufferPointer { CSVCellValue.number($0) }
        if type == .decimal, number != nil, let canonical = ExactDecimal.canonical(key) { return .decimal(canonical) }
        return number ?? .string(key)
    }

    /// Checks the values `expect` asks for; a missing value counts as null.
    func checkExpected(_ reader: inout JSONReader, _ text: SourceText, _ documentStart: Int) throws {
        for (path, values) in expected {
            reader.position = documentStart
            let offset = reader.locate(path)
            let found: Value = offset.flatMap { _ in try? reader.readValue() } ?? .null
            guard !values.contains(where: { $0.joinKey == found.joinKey }) else { continue }
            let shown = values.map(JSONWriter.compact).joined(separator: " or ")
            let what = offset == nil ? "nothing" : JSONWriter.compact(found)
            throw SourceError(
                text, offset: offset ?? documentStart,
                "expected \(shown) at \(path) (the source's 'expect'), found \(what); this file's records are not read",
                pointer: path.description)
        }
    }

    /// The file named by the page's next-page token: absent, null or empty means this is
    /// the last page. A token that cannot name a file is an error at the token: the pages
    /// after this one would be lost (as they would if the file is missing: `FollowCheck`).
    public func nextFile(after text: SourceText, path: String) -> NextPage? {
        guard let nextTokenPath else { return nil }
        let found: (offset: Int, value: Value?)? = text.bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer)
            reader.skipByteOrderMark()
            guard let offset = reader.locate(nextTokenPath) else { return nil }
            return (offset, try? reader.readValue())
        }
        guard let found, let token = found.value, !token.isNull else { return nil }
        func failed(_ message: String) -> NextPage {
            .failed(
                SourceError(
                    text, offset: found.offset, message + "; the pages after this one are not read",
                    pointer: nextTokenPath.description))
        }
        guard case .string(let name) = token else {
            return failed("the next-page token at \(nextTokenPath) is \(JSONWriter.compact(token)), not text")
        }
        if name.isEmpty { return nil }
        let file =
            nextFileTemplate
            .replacingOccurrences(of: "{token-sha256}", with: SHA256.hex(Array(name.utf8)))
            .replacingOccurrences(of: "{token}", with: name)
        guard !file.contains("/"), !file.contains("\u{0}"), file != ".", file != ".." else {
            return failed(
                "the next-page token '\(name)' cannot name a file beside this page (it holds '/'); name the saved pages by \"{token-sha256}.json\" with next-page-file"
            )
        }
        guard file.utf8.count <= 255 else {
            return failed(
                "the next-page token is \(name.utf8.count) bytes long, too long for a file name; save the pages as SHA-256 of the token and set next-page-file: \"{token-sha256}.json\""
            )
        }
        let next = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(file)
            .standardizedFileURL.path
        return .file(next, link: text.location(ofOffset: found.offset, pointer: nextTokenPath.description))
    }

    public var followLimit: Int { maxPages }
    public var followsLinks: Bool { nextTokenPath != nil }

    /// The records as an array, placed at `records` inside an object when the source
    /// reads them from there, with page 1 of 1 in the page metadata when it has some, and
    /// the first expected value at each pointer of `expect`.
    public func document(holding records: [Value]) -> [UInt8] {
        var document = Value.array(records)
        if let keyField {
            // Keyed by each record's key field (its position when it has none).
            var object = JSONObject()
            for (index, record) in records.enumerated() {
                var key = String(index)
                switch record.value(at: FieldPath(components: [.key(keyField)])) {
                case .string(let text)?: key = text
                case let value? where !value.isNull: key = JSONWriter.compact(value)
                default: break
                }
                object.appendUnchecked(key, record)
            }
            document = .object(object)
        }
        if let recordsPath {
            var root = Value.object(JSONObject())
            Self.set(&root, recordsPath.components[...], document)
            if let pageNumberPath { Self.set(&root, pageNumberPath.components[...], .int(1)) }
            if let pageCountPath { Self.set(&root, pageCountPath.components[...], .int(1)) }
            for (path, values) in expected where !values[0].isNull { Self.set(&root, path.components[...], values[0]) }
            document = root
        }
        return Array(JSONWriter.compact(document).utf8)
    }

    static func set(_ target: inout Value, _ path: ArraySlice<FieldPath.Component>, _ value: Value) {
        guard let first = path.first else {
            target = value
            return
        }
        let key: String
        switch first {
        case .key(let name): key = name
        case .index(let index): key = String(index)
        }
        var object: JSONObject
        if case .object(let existing) = target { object = existing } else { object = JSONObject() }
        var child = object[key] ?? .null
        set(&child, path.dropFirst(), value)
        object[key] = child
        target = .object(object)
    }

    /// A positive whole number at `path` in the document, or a source error.
    static func pageValue(
        _ path: FieldPath, _ key: String, _ reader: inout JSONReader, _ text: SourceText, _ start: Int
    ) throws -> Int {
        reader.position = start
        guard let offset = reader.locate(path) else {
            throw SourceError(text, offset: start, "no \(key) at \(path) in this page file")
        }
        reader.position = offset
        let value = try? reader.readValue()
        guard case .int(let number)? = value?.joinKey, number >= 1 else {
            throw SourceError(
                text, offset: offset,
                "the \(key) at \(path) must be a whole number of at least 1, found \(value.map(JSONWriter.compact) ?? "nothing")",
                pointer: path.description)
        }
        return Int(number)
    }

    /// Reads the elements of the array at `arrayStart`: in one piece, or for a large
    /// array in one chunk per thread. A chunk after the first starts at a guessed element
    /// boundary (`}` `,` `{`); the chunk before it must end exactly there, or the guess was
    /// wrong (a look-alike inside a string) and the array is read again in one piece.
    static func parseElements(
        _ buffer: UnsafeBufferPointer<UInt8>, _ text: SourceText, arrayStart: Int, mapping: FieldMapping,
        threads: Threads,
        limits: InputLimits
    ) throws -> (chunks: [[IngestEntry]], end: Int) {
        var splits: [Int] = []
        let length = buffer.count - arrayStart
        if threads.count > 1, length >= 1 << 17 {
            for piece in 1..<threads.count {
                if let split = elementStart(near: arrayStart + length * piece / threads.count, in: buffer),
                    split > (splits.last ?? arrayStart)
                {
                    splits.append(split)
                }
            }
        }
        if !splits.isEmpty {
            text.findLineStarts(threads: threads)
            let starts = [arrayStart] + splits
            let results = threads.run(starts.count) { piece in
                parseChunk(
                    buffer, text, from: starts[piece], first: piece == 0,
                    stop: piece + 1 < starts.count ? starts[piece + 1] : nil, mapping: mapping, limits: limits)
            }
            var aligned = true
            for (piece, result) in results.enumerated() {
                if let error = result.error { throw error }
                if piece + 1 < starts.count, result.stoppedAt != starts[piece + 1] {
                    aligned = false
                    break
                }
            }
            if aligned { return (results.map(\.entries), results.last!.end) }
        }
        let whole = parseChunk(buffer, text, from: arrayStart, first: true, stop: nil, mapping: mapping, limits: limits)
        if let error = whole.error { throw error }
        return ([whole.entries], whole.end)
    }

    struct Chunk {
        var entries: [IngestEntry] = []

        /// The entries, leaving none, so whoever takes them holds the only reference.
        mutating func takeEntries() -> [IngestEntry] {
            var taken: [IngestEntry] = []
            swap(&taken, &entries)
            return taken
        }
        /// A `JSONSyntaxError`, `JSONLimitError`, `ValueTooLong` or `RecordTooLarge`.
        var error: Error?
        /// Where the chunk stopped: the start of the element at or after `stop`, or nil at ']'.
        var stoppedAt: Int?
        /// The position just after the closing ']' (last chunk).
        var end = 0
    }

    /// Parses elements from `from` (the '[' for the first chunk, else an element start)
    /// until the element starting at or after `stop`, or the closing bracket.
    static func parseChunk(
        _ buffer: UnsafeBufferPointer<UInt8>, _ text: SourceText, from: Int, first: Bool, stop: Int?,
        mapping: FieldMapping,
        limits: InputLimits
    ) -> Chunk {
        var chunk = Chunk()
        let mapping = mapping.ownTree()
        var reader = JSONReader(bytes: buffer, start: from, maxValueBytes: limits.maxValueBytes)
        var index = 0
        // The pages read go every 8 MiB: the records hold their own values, so the file
        // need not stay in memory beside them (at 1M cities it was 90 of the 373 MiB that
        // ingest peaked at). What reads it again later (a record with findings mapped at
        // merge, a location) brings its pages back from the page cache.
        var pass = FileBytes.ReleasingPass(text.bytes, from: from, step: 8 << 20)
        var values = RowBuilder()
        defer { pass.end(at: reader.position) }
        do {
            if first { reader.position += 1 }
            var atElement = !first
            while true {
                if !atElement {
                    guard try reader.nextArrayElement(first: first && index == 0) else { break }
                }
                atElement = false
                reader.skipWhitespace()
                let offset = reader.position
                if let stop, offset >= stop {
                    chunk.stoppedAt = offset
                    return chunk
                }
                let origin = Origin(source: text, offset: offset, index: index)
                // A record that is not clean, or not valid JSON, is read again by the
                // general reader, which reports exactly why and where. A value over the
                // limit fails at once, naming its record.
                do {
                    var clean: Record?
                    do {
                        clean = try mapping.readClean(&reader, origin: origin, values: &values)
                    } catch let error as JSONLimitError {
                        throw error
                    } catch {
                        clean = nil
                    }
                    if let record = clean {
                        chunk.entries.append(.record(record))
                    } else {
                        reader.position = offset
                        let value = try reader.readValue()
                        chunk.entries.append(
                            IngestEntry.make(
                                value, origin: origin, duplicateKey: reader.duplicateKeyOffset, mapping: mapping))
                    }
                } catch let error as JSONLimitError {
                    throw ValueTooLong(error: error, record: offset)
                }
                if reader.position - offset > limits.maxRecordBytes {
                    throw RecordTooLarge(offset: offset, length: reader.position - offset)
                }
                pass.reached(offset)
                index += 1
            }
            chunk.end = reader.position
        } catch {
            // A JSONSyntaxError or JSONLimitError from the reader, ValueTooLong or RecordTooLarge.
            chunk.error = error
        }
        return chunk
    }

    /// An element longer than `limits.max-record-bytes` (found by `parseChunk`).
    struct RecordTooLarge: Error {
        let offset: Int
        let length: Int
    }

    /// A value over `limits.max-value-bytes` inside the element starting at `record`.
    struct ValueTooLong: Error {
        let error: JSONLimitError
        let record: Int
    }

    /// The start of an object element near `guess`: a `{` whose previous non-blank byte
    /// is `,` preceded (past blanks) by `}`. Only a guess: the parse verifies it.
    static func elementStart(near guess: Int, in buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        let limit = min(buffer.count, guess + (1 << 16))
        var position = guess
        while position < limit {
            if buffer[position] == UInt8(ascii: "{") {
                var back = position - 1
                while back > 0, isBlank(buffer[back]) { back -= 1 }
                if back > 0, buffer[back] == UInt8(ascii: ",") {
                    back -= 1
                    while back > 0, isBlank(buffer[back]) { back -= 1 }
                    if buffer[back] == UInt8(ascii: "}") { return position }
                }
            }
            position += 1
        }
        return nil
    }

    static func expectEnd(_ reader: inout JSONReader, _ text: SourceText) throws {
        if reader.peek() != nil {
            throw JSONSyntaxError(
                offset: reader.position, message: "unexpected data after the end of the JSON document")
        }
    }

    /// A record with a key written twice: JSON readers disagree on which value wins, so the
    /// record is rejected rather than guessed at. Points at the second occurrence.
    static func duplicateKey(_ text: SourceText, at offset: Int, origin: Origin) -> Finding {
        let path: [FieldPath.Component] = text.bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer, start: origin.offset)
            return reader.path(to: offset) ?? []
        }
        var key = "?"
        if case .key(let last)? = path.last { key = last }
        return Finding(
            rule: .duplicateKey,
            message: "key '\(key)' appears more than once in the same object; which value is meant is ambiguous",
            location: text.location(ofOffset: offset, pointer: origin.pointer + FieldPath.pointer(path)),
            field: key, value: nil)
    }
}
