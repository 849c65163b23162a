import CLibXML2
import Foundation

/// `kind: html`: records from saved HTML listing pages, parsed with libxml2. An `items`
/// selector finds the records of a page; each field has a selector (CSS subset or XPath),
/// what to take (`text`, `attr:NAME`, or `class` mapped through `map`), an optional
/// converter and whether it is required. Pages are a glob (`path`), or a start page
/// (`path`) whose `next` link is followed. Page problems (markup errors recovered, charset
/// trouble, an empty or binary file, a page without items) are warnings naming the file;
/// a field's text longer than `limits.max-value-bytes` fails the page.
public struct HTMLSource: PagewiseSource {
    public static let spec = KindSpec(
        stage: .ingest, name: "html",
        summary:
            "Records from saved HTML pages (libxml2): an items selector, and per field a selector, what to take and a converter.",
        keys: [
            KeySpec("kind", required: true, "html"),
            KeySpec(
                "path", required: true,
                "the pages: a glob, or with 'next' the start page (relative to the pipeline's folder)"),
            KeySpec("items", required: true, "selector of one record's element on a page (CSS subset or xpath:...)"),
            KeySpec(
                "fields", required: true,
                "per field: {select: SELECTOR, take: text|attr:NAME|class, map: {word: value}, convert: url|price-amount|price-currency|number|integer, type: T, required: true|false, all: true (every match, as an array), join: SEPARATOR (every match, joined into one text)}"
            ),
            KeySpec(
                "next",
                "selector of the link to the next page (its href, relative to the page): the pages are followed from 'path'"
            ),
            KeySpec(
                "next-page-file",
                "the file a next link was saved as, beside the page holding it, when the crawler named pages its own way: a template over the page number (\"quotes-{page}.html\": the page after page 1 is quotes-2.html), or {link: REGEX, file: TEMPLATE} from the link (link: \"/page/(\\\\d+)/\", file: \"quotes-$1.html\")"
            ),
            KeySpec("max-pages", "most pages to follow with 'next' (default 1000)"),
            FollowCheck.MissingPage.key,
            KeySpec(
                "base-url",
                "the site address the saved pages came from: relative links resolve against it (default: file:// addresses of the pages)"
            ),
            KeySpec("id", "the field that identifies a record"),
            KeySpec("unknown-fields", "not used by html sources"),
        ],
        details: #"""
            Parsed with libxml2, recovering from broken markup, with no network access, no external
            entities and no size limits of libxml2's own: the pipeline's [`limits`](#input-limits)
            bound a page and a field's text. `unknown-fields` does not apply. Selectors, fields,
            prices, following pages, saved-page names and the warnings a page can give are described
            in [HTML pages](#html-pages).
            """#,
        example: """
            products:
              kind: html
              path: ../Fixtures/products/catalogue/page-1.html
              next: li.next > a
              items: article.product_pod
              base-url: https://books.example.com/catalogue/
              fields:
                name: {select: h3 > a, take: "attr:title", required: true}
                url: {select: h3 > a, take: "attr:href", convert: url, required: true}
                price: {select: p.price_color, convert: price-amount}
                currency: {select: p.price_color, convert: price-currency}
                rating: {select: p.star-rating, take: class, map: {One: 1, Two: 2, Three: 3, Four: 4, Five: 5}}
            """)

    public enum Take: Sendable, Equatable {
        case text
        case attribute(String)
        case classWord
    }

    public typealias Convert = Converters.Target

    public struct Field: Sendable {
        public let name: String
        public let selector: String
        public let xpath: String
        public let take: Take
        public let map: [String: Value]?
        public let convert: Convert?
        public let required: Bool
        public let type: FieldType
        /// Every match rather than the first: an array, or with `join` one text.
        public let all: Bool
        public let join: String?
    }

    let itemsSelector: String
    let itemsXPath: String
    let fields: [Field]
    let nextXPath: String?
    /// How a next link names its saved file, when not by the link itself.
    let nextFileName: NextFileName?
    let maxPages: Int
    public let onMissingPage: FollowCheck.MissingPage
    let baseURL: URL?

    public init(config: ConfigMap) throws {
        let itemsNode = try config.require("items")
        itemsSelector = try itemsNode.string("'items'")
        itemsXPath = try Self.xpath(itemsSelector, relative: false, at: itemsNode)
        fields = try Self.parseFields(config).fields
        if let nextNode = config["next"] {
            if let path = try config.string("path"), path.contains(where: { "*?[".contains($0) }) {
                throw nextNode.error(
                    "'next' follows links from one start page: give 'path' a single file, not the glob '\(path)'")
            }
            nextXPath = try Self.xpath(try nextNode.string("'next'"), relative: false, at: nextNode)
        } else {
            nextXPath = nil
        }
        if let node = config["next-page-file"] {
            guard config["next"] != nil else { throw node.error("'next-page-file' needs 'next'") }
            nextFileName = try NextFileName(node)
        } else {
            nextFileName = nil
        }
        maxPages = try config.int("max-pages") ?? 1000
        onMissingPage = try FollowCheck.MissingPage.parse(config, follows: nextXPath != nil, following: "next")
        if maxPages < 1 { throw config["max-pages"]!.error("'max-pages' must be at least 1") }
        if let base = try config.string("base-url") {
            guard let url = URL(string: base.hasSuffix("/") ? base : base + "/"), url.scheme != nil else {
                throw config["base-url"]!.error(
                    "'base-url' must be an absolute URL such as https://shop.example.com/catalogue/")
            }
            baseURL = url
        } else {
            baseURL = nil
        }
    }

    static func xpath(_ selector: String, relative: Bool, at node: ConfigNode) throws -> String {
        let xpath: String
        do {
            xpath = try CSSSelector.xpath(selector, relative: relative)
        } catch let error as CSSSelector.SyntaxError {
            throw node.error("selector '\(selector)': \(error.message)")
        }
        guard HTMLDocument.compiles(xpath) else {
            throw node.error("selector '\(selector)' is not valid XPath: \(xpath)")
        }
        return xpath
    }

    public static func declaredFields(
        _ config: ConfigMap, what: String
    ) throws -> (fields: [FieldSpec], errors: [DefinitionError]) {
        let (fields, errors) = try parseFields(config)
        return (
            fields.map { FieldSpec(name: $0.name, type: $0.type, sourcePath: FieldPath(components: [.key($0.name)])) },
            errors
        )
    }

    static func parseFields(_ config: ConfigMap) throws -> (fields: [Field], errors: [DefinitionError]) {
        let node = try config.require("fields")
        let mapping = try node.mapping("'fields'")
        var fields: [Field] = []
        var collector = ErrorCollector(fallback: node)
        for (keyNode, valueNode) in mapping.mapping {
            let key = ConfigNode(node: keyNode, file: config.file)
            let value = ConfigNode(node: valueNode, file: config.file)
            guard let name = collector.attempt({ try key.string("field name") }) else { continue }
            let field = collector.attempt { () throws -> Field in
                let spec = try value.mapping("field '\(name)'")
                let unknown = spec.unknownKeys(allowed: [
                    "select", "take", "map", "convert", "type", "required", "all", "join",
                ])
                if !unknown.isEmpty { throw DefinitionErrors(unknown) }
                let selectNode = try spec.require("select")
                let selector = try selectNode.string("'select' of field '\(name)'")
                let xpath = try xpath(selector, relative: true, at: selectNode)
                let takeText = try spec.string("take") ?? "text"
                let take: Take
                switch takeText {
                case "text": take = .text
                case "class": take = .classWord
                case let text where text.hasPrefix("attr:") && text.count > 5:
                    take = .attribute(String(text.dropFirst(5)))
                default:
                    throw spec["take"]!.error(
                        "'take' of field '\(name)' must be text, class or attr:NAME, found '\(takeText)'")
                }
                var map: [String: Value]?
                if let mapNode = spec["map"] {
                    var table: [String: Value] = [:]
                    for (word, mapped) in try mapNode.mapping("'map' of field '\(name)'").mapping {
                        table[try ConfigNode(node: word, file: config.file).string("a word")] = try ConfigNode(
                            node: mapped, file: config.file
                        ).value()
                    }
                    map = table
                }
                if take == .classWord, map == nil {
                    throw spec.error("field '\(name)' takes a class word: give the 'map' from words to values")
                }
                let convert = try spec.choice("convert", Convert.self, choices: Convert.allCases.filter { $0 != .text })
                if convert == .text {
                    throw spec["convert"]!.error(
                        "field '\(name)': convert: text is for other sources (a field's text is already decoded and collapsed); leave it out"
                    )
                }
                let required = try spec.bool("required") ?? false
                let defaultType: FieldType
                switch convert {
                case .priceAmount: defaultType = .decimal
                case .number: defaultType = .number
                case .integer: defaultType = .integer
                default:
                    if let values = map?.values,
                        values.allSatisfy({ if case .int = $0 { return true } else { return false } })
                    {
                        defaultType = .integer
                    } else if let values = map?.values, values.allSatisfy({ $0.number != nil }) {
                        defaultType = .number
                    } else {
                        defaultType = .string
                    }
                }
                let join = try spec.string("join")
                let all = try spec.bool("all") ?? (join != nil)
                if join != nil, spec["all"] != nil, !all {
                    throw spec["join"]!.error(
                        "field '\(name)': 'join' joins every match, so it needs all: true (or no 'all')")
                }
                if join != nil, map != nil || convert != nil {
                    throw spec["join"]!.error(
                        "field '\(name)': 'join' makes one text of the matches' texts; leave out 'map' and 'convert' (or take them as an array with all: true)"
                    )
                }
                if all, take == .classWord {
                    throw spec["all"]!.error(
                        "field '\(name)': take: class maps one element's class; 'all' is for text or attr:NAME")
                }
                if all, join == nil, let typeNode = spec["type"],
                    let written = try? typeNode.string("type"), written != "array", written != "any"
                {
                    throw typeNode.error(
                        "field '\(name)' takes every match (all: true), so it is an array; use type array (the default) or join: \", \" for one text"
                    )
                }
                let type =
                    try spec.choice("type", FieldType.self, choices: FieldType.allCases)
                    ?? (all && join == nil ? .array : all ? .string : defaultType)
                // What the field can hold: the page's text, a converter's result or the map's
                // values. A type none of them fits (`type: array` on text) would reject every
                // record at run time: refuse it now.
                let produced =
                    map != nil && convert != nil
                    ? [] : map.map { Array($0.values) } ?? [convert?.sample ?? .string("text")]
                if !all, let typeNode = spec["type"],
                    let bad = produced.first(where: { !$0.isNull && FieldMapping.convert($0, to: type) == nil })
                {
                    let source =
                        map != nil
                        ? "its map gives \(bad.typeName) values"
                        : convert.map { "convert: \($0.rawValue) gives \(bad.typeName) values" }
                            ?? "it takes text from the page"
                    throw typeNode.error(
                        "field '\(name)' cannot be of type \(type.rawValue): \(source), so every record would be rejected; use type \(defaultType.rawValue) (the default) or any"
                    )
                }
                return Field(
                    name: name, selector: selector, xpath: xpath, take: take, map: map, convert: convert,
                    required: required, type: type, all: all, join: join)
            }
            if let field { fields.append(field) }
        }
        if fields.isEmpty, collector.errors.isEmpty {
            collector.errors.append(node.error("'fields' declares no field"))
        }
        return (fields, collector.errors)
    }

    public func read(_ text: SourceText, into sink: inout IngestSink) throws -> PageMetadata? {
        let page = extractPage(text, mapping: sink.mapping, limits: sink.limits)
        if let failure = page.failure { throw failure }
        try sink.take(page, of: text)
        return nil
    }

    /// Pages are independent unless they are found by following links.
    public var readsPagesInParallel: Bool { nextXPath == nil }

    public func extractPage(_ text: SourceText, mapping: FieldMapping, limits: InputLimits) -> ExtractedPage {
        // The page's tree lives in this thread's arena and goes at once when it is read.
        HTMLDocument.withArena { extractParsedPage(text, mapping: mapping, limits: limits) }
    }

    private func extractParsedPage(_ text: SourceText, mapping: FieldMapping, limits: InputLimits) -> ExtractedPage {
        var page = ExtractedPage()
        text.layout = HTMLLayout(selectors: Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.selector) }))
        func pageFinding(_ rule: RuleCode, _ message: String, offset: Int = 0) -> Finding {
            Finding(
                rule: rule, severity: .warning, message: message,
                location: text.location(ofOffset: offset, pointer: "page \(text.pageNumber)"))
        }
        var bytes = text.bytes.array
        let hasBOM = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        if bytes.dropFirst(hasBOM ? 3 : 0).allSatisfy({ $0 == 0x20 || (0x09...0x0D).contains($0) }) {
            page.fileFindings.append(pageFinding(.emptyPage, "the page is empty"))
            return page
        }
        let utf16 =
            bytes.count >= 2 && ((bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF))
        if !utf16, bytes.prefix(8192).contains(0) {
            page.fileFindings.append(
                pageFinding(.notHTML, "the file is binary, not an HTML page (it holds NUL bytes); skipped"))
            return page
        }
        if !utf16, let firstNUL = bytes.firstIndex(of: 0) {
            // libxml2 would stop reading at a NUL: replace each with U+FFFD, as browsers do.
            let count = bytes.filter { $0 == 0 }.count
            page.fileFindings.append(
                pageFinding(
                    .nulBytes, "\(count) NUL byte\(count == 1 ? "" : "s") replaced by U+FFFD", offset: firstNUL))
            bytes = bytes.flatMap { $0 == 0 ? [0xEF, 0xBF, 0xBD] : [$0] }
        }
        let decision = PageEncoding.decide(bytes)
        if let finding = decision.finding {
            page.fileFindings.append(pageFinding(finding.rule, finding.message, offset: finding.offset))
        }
        guard
            let document = HTMLDocument(
                bytes: decision.transcoded ?? bytes, url: text.displayPath, encoding: decision.encoding)
        else {
            page.fileFindings.append(pageFinding(.htmlParse, "libxml2 could not read the page at all; skipped"))
            return page
        }
        if document.errorCount > 0, let first = document.firstError {
            let offset = first.line > 0 ? text.offset(ofLine: first.line) : 0
            page.fileFindings.append(
                pageFinding(
                    .htmlMarkup,
                    "\(document.errorCount) markup error\(document.errorCount == 1 ? "" : "s") recovered from; the first: \(first.message)",
                    offset: offset))
        }
        let items = document.select(itemsXPath)
        if items.isEmpty {
            page.fileFindings.append(
                pageFinding(.noItems, "no element matches the items selector '\(itemsSelector)' on this page"))
        }
        let pageURL = pageAddress(text)
        for (index, item) in items.enumerated() {
            let origin = Origin(source: text, offset: text.offset(ofLine: HTMLDocument.line(item)), index: index)
            var object = JSONObject()
            var findings: [Finding] = []
            for field in fields {
                let value: Value
                let problem: (rule: RuleCode, message: String, value: Value)?
                do {
                    (value, problem) = try extract(
                        field, from: item, in: document, page: pageURL, maxValueBytes: limits.maxValueBytes)
                } catch let error as TextTooLong {
                    let location = origin.location(of: FieldPath(components: [.key(field.name)]))
                    let what = "the text of field '\(field.name)' of item \(index + 1) (\(error.length) bytes)"
                    return ExtractedPage(
                        failure: SourceError(
                            location: location,
                            message: InputLimits.exceeded(what, key: "max-value-bytes", limit: limits.maxValueBytes)))
                } catch {
                    preconditionFailure("extract throws only TextTooLong")
                }
                object.appendUnchecked(field.name, value)
                if let problem {
                    findings.append(
                        Finding(
                            rule: problem.rule, message: problem.message,
                            location: origin.location(of: FieldPath(components: [.key(field.name)])), field: field.name,
                            value: problem.value))
                }
            }
            page.entries.append(.withFindings(.object(object), origin, findings))
        }
        return page
    }

    /// A field's text over `limits.max-value-bytes`.
    struct TextTooLong: Error {
        let length: Int
    }

    /// The value of one field of an item, or the problem that stops it.
    func extract(
        _ field: Field, from item: xmlNodePtr, in document: HTMLDocument, page: URL?, maxValueBytes: Int
    ) throws -> (Value, (rule: RuleCode, message: String, value: Value)?) {
        let selected = document.evaluate(field.xpath, from: item)
        if field.all, case .nodes(let nodes) = selected {
            return try extractAll(field, nodes, page: page, maxValueBytes: maxValueBytes)
        }
        guard case .nodes(let nodes) = selected, let node = nodes.first else {
            // An XPath that computes text (normalize-space(...), concat(...)) gives it directly.
            if case .text(let text) = selected, case let computed = Trim.collapsed(text), !computed.isEmpty {
                if computed.utf8.count > maxValueBytes { throw TextTooLong(length: computed.utf8.count) }
                return convert(computed, field, page: page)
            }
            return (
                .null,
                field.required
                    ? (
                        .missingField, "\(field.name): selector '\(field.selector)' matches nothing in this item",
                        .null
                    ) : nil
            )
        }
        var raw: String?
        switch field.take {
        case .text: raw = HTMLDocument.text(node)
        case .attribute(let name): raw = HTMLDocument.attribute(name, of: node).map(Trim.collapsed)
        case .classWord:
            let words = (HTMLDocument.attribute("class", of: node) ?? "").split(whereSeparator: \.isWhitespace).map(
                String.init)
            guard let mapped = words.lazy.compactMap({ field.map?[$0] }).first else {
                let problem =
                    field.required || !words.isEmpty
                    ? (
                        RuleCode.classMap,
                        "\(field.name): no class word of '\(words.joined(separator: " "))' is in the field's map",
                        Value.string(words.joined(separator: " "))
                    ) : nil
                return (.null, problem)
            }
            return (mapped, nil)
        }
        guard let text = raw, !text.isEmpty else {
            return (
                .null,
                field.required
                    ? (
                        .missingField,
                        "\(field.name): selector '\(field.selector)' found no \(field.take == .text ? "text" : "attribute value")",
                        .null
                    ) : nil
            )
        }
        if text.utf8.count > maxValueBytes { throw TextTooLong(length: text.utf8.count) }
        return convert(text, field, page: page)
    }

    /// Every match of a field with `all`: each one's text or attribute (through its map or
    /// converter), empty ones left out, as an array or joined into one text with `join`.
    /// The first match that does not convert is the field's problem; an empty result is
    /// null (a problem when the field is required).
    func extractAll(
        _ field: Field, _ nodes: [xmlNodePtr], page: URL?, maxValueBytes: Int
    ) throws -> (Value, (rule: RuleCode, message: String, value: Value)?) {
        var values: [Value] = []
        var problem: (rule: RuleCode, message: String, value: Value)?
        var length = 0
        for node in nodes {
            let raw: String?
            switch field.take {
            case .text: raw = HTMLDocument.text(node)
            case .attribute(let name): raw = HTMLDocument.attribute(name, of: node).map(Trim.collapsed)
            case .classWord: raw = nil
            }
            guard let text = raw, !text.isEmpty else { continue }
            length += text.utf8.count + (field.join?.utf8.count ?? 0)
            if length > maxValueBytes { throw TextTooLong(length: length) }
            let (value, failure) = field.join == nil ? convert(text, field, page: page) : (.string(text), nil)
            if let failure, problem == nil { problem = failure }
            if !value.isNull { values.append(value) }
        }
        if values.isEmpty {
            let missing =
                field.required
                ? (
                    RuleCode.missingField, "\(field.name): selector '\(field.selector)' matches nothing in this item",
                    Value.null
                )
                : nil
            return (.null, problem ?? missing)
        }
        if let join = field.join {
            return (.string(values.compactMap(\.string).joined(separator: join)), problem)
        }
        return (.array(values), problem)
    }

    /// A field's text through its map or converter.
    func convert(
        _ text: String, _ field: Field, page: URL?
    ) -> (Value, (rule: RuleCode, message: String, value: Value)?) {
        if let map = field.map {
            guard let mapped = map[text] else {
                return (.null, (.classMap, "\(field.name): '\(text)' is not in the field's map", .string(text)))
            }
            return (mapped, nil)
        }
        guard let target = field.convert else { return (.string(text), nil) }
        switch Converters.convert(text, to: target, base: page) {
        case .success(let value): return (value, nil)
        case .failure(let failure): return (.null, (failure.rule, "\(field.name): \(failure.message)", .string(text)))
        }
    }

    /// The address of a page: under `base-url` at the page's path below the source's
    /// folder, or the page's file:// address.
    func pageAddress(_ text: SourceText) -> URL? {
        guard let baseURL else { return URL(fileURLWithPath: text.absolutePath ?? text.displayPath) }
        let relative =
            text.absolutePath.map {
                Paths.relative($0, to: text.sourceRoot ?? ($0 as NSString).deletingLastPathComponent)
            } ?? text.displayPath
        let encoded = relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? relative
        return URL(string: encoded, relativeTo: baseURL)
    }

    public func nextFile(after text: SourceText, path: String) -> NextPage? {
        guard let nextXPath else { return nil }
        let bytes = text.bytes.array
        let decision = PageEncoding.decide(bytes)
        let href: String? = HTMLDocument.withArena {
            guard
                let document = HTMLDocument(
                    bytes: decision.transcoded ?? bytes, url: text.displayPath, encoding: decision.encoding)
            else { return nil }
            return withExtendedLifetime(document) {
                document.select(nextXPath).first.flatMap { HTMLDocument.attribute("href", of: $0) }?
                    .trimmingCharacters(in: .whitespaces)
            }
        }
        guard let href, !href.isEmpty else { return nil }
        if let nextFileName {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            switch nextFileName.file(forLink: href, after: text.pageNumber) {
            case .success(let file):
                return .file(URL(fileURLWithPath: file, relativeTo: folder).standardizedFileURL.path, link: nil)
            case .failure(let refusal):
                return .refused(refusal.message)
            }
        }
        // Saved pages: the query and fragment do not name another file; escapes do.
        var target = String(href.split(separator: "#", omittingEmptySubsequences: false)[0])
        target = String(target.split(separator: "?", omittingEmptySubsequences: false)[0])
        if target.contains("://") || target.hasPrefix("/") {
            return .refused(
                "the next link '\(href)' leaves the saved pages (an address or a site-root path, not a relative link); stopped here"
            )
        }
        target = target.removingPercentEncoding ?? target
        return .file(
            URL(fileURLWithPath: target, relativeTo: URL(fileURLWithPath: path).deletingLastPathComponent())
                .standardizedFileURL.path, link: nil)
    }

    /// A page without items (pipeline tests of HTML sources use fixture pages: there is no
    /// way to write records as markup the declared selectors would find).
    public func document(holding records: [Value]) -> [UInt8] {
        Array("<html><body></body></html>".utf8)
    }

    public var acceptsInlineRecords: Bool { false }

    public var followLimit: Int { maxPages }
    public var followsLinks: Bool { nextXPath != nil }
}
