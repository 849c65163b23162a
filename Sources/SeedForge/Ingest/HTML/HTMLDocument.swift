import CLibXML2
import CSeedForgeSupport
import Foundation

/// One HTML page parsed by libxml2, configured for untrusted input: recovery from broken
/// markup, no network access, no external entities, no size limits, errors collected
/// instead of printed. libxml2 is initialised once per process; documents may be parsed
/// on several threads at once (each document is used by one thread).
final class HTMLDocument {
    let document: htmlDocPtr
    /// Markup errors libxml2 recovered from: how many, and the first.
    let errorCount: Int
    let firstError: (line: Int, message: String)?
    /// Parsed inside an arena scope (`withArena`): the scope's end frees it all at once.
    private let inArena: Bool

    /// libxml2 allocates through seedforge's arena functions (xml_arena.c): plain malloc
    /// and free except inside `withArena`. Set before libxml2 allocates anything.
    private static let initialised: Void = {
        xmlMemSetup(seedforge_arena_free, seedforge_arena_malloc, seedforge_arena_realloc, seedforge_arena_strdup)
        xmlInitParser()
    }()

    /// Runs `body` with this thread's libxml2 allocations in its arena, released at once
    /// when it returns: documents parsed in `body` must not be used after it (they are
    /// not freed one node at a time, which on real pages cost about 40% of the time).
    static func withArena<T>(_ body: () throws -> T) rethrows -> T {
        _ = initialised
        seedforge_arena_begin()
        defer {
            // The last error libxml2 keeps per thread holds copies of its strings: let
            // them go now, or the next error would free memory the arena has reused.
            xmlResetLastError()
            seedforge_arena_end()
        }
        return try body()
    }

    init?(bytes: [UInt8], url: String, encoding: String) {
        _ = Self.initialised
        var errors = seedforge_xml_errors()
        let parsed: htmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                seedforge_html_parse(pointer, Int32(buffer.count), url, encoding, &errors)
            }
        }
        guard let parsed else { return nil }
        document = parsed
        inArena = seedforge_arena_active() != 0
        errorCount = Int(errors.count)
        if errors.count > 0 {
            let message = withUnsafeBytes(of: errors.first_message) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            firstError = (Int(errors.first_line), message.trimmingCharacters(in: .whitespacesAndNewlines))
        } else {
            firstError = nil
        }
    }

    /// One XPath context and each expression compiled once, for the whole document.
    private var context: xmlXPathContextPtr?
    private var compiled: [String: xmlXPathCompExprPtr] = [:]

    deinit {
        if inArena { return }
        for expression in compiled.values { xmlXPathFreeCompExpr(expression) }
        if let context { xmlXPathFreeContext(context) }
        xmlFreeDoc(document)
    }

    /// What an XPath expression gives: the nodes it selects, or the text or number it
    /// computes (`normalize-space(.//h3)`, `count(li)`).
    enum Result {
        case nodes([xmlNodePtr])
        case text(String)
        case nothing
    }

    /// Evaluates an expression once, from the document or below `node`.
    func evaluate(_ xpath: String, from node: xmlNodePtr? = nil) -> Result {
        guard let result = evaluateRaw(xpath, from: node) else { return .nothing }
        defer { xmlXPathFreeObject(result) }
        if result.pointee.type == XPATH_NODESET {
            guard let set = result.pointee.nodesetval else { return .nodes([]) }
            return .nodes((0..<Int(set.pointee.nodeNr)).compactMap { set.pointee.nodeTab[$0] })
        }
        guard let text = xmlXPathCastToString(result) else { return .nothing }
        defer { seedforge_xml_free(text) }
        return .text(String(cString: text))
    }

    /// The nodes an XPath expression selects, from the document or below `node`.
    func select(_ xpath: String, from node: xmlNodePtr? = nil) -> [xmlNodePtr] {
        if case .nodes(let nodes) = evaluate(xpath, from: node) { return nodes }
        return []
    }

    private func evaluateRaw(_ xpath: String, from node: xmlNodePtr?) -> xmlXPathObjectPtr? {
        if context == nil { context = xmlXPathNewContext(document) }
        guard let context else { return nil }
        seedforge_xml_quiet(1)
        defer { seedforge_xml_quiet(0) }
        if compiled[xpath] == nil { compiled[xpath] = xmlXPathCompile(xpath) }
        guard let expression = compiled[xpath] else { return nil }
        context.pointee.node = node ?? xmlDocGetRootElement(document)
        return xmlXPathCompiledEval(expression, context)
    }

    /// Whether libxml2 can decode a charset name.
    static func knowsEncoding(_ name: String) -> Bool {
        _ = initialised
        guard let handler = xmlFindCharEncodingHandler(name) else { return false }
        xmlCharEncCloseFunc(handler)
        return true
    }

    /// Whether an XPath expression compiles (for checking selectors when a pipeline loads).
    static func compiles(_ xpath: String) -> Bool {
        _ = initialised
        seedforge_xml_quiet(1)
        defer { seedforge_xml_quiet(0) }
        guard let compiled = xmlXPathCompile(xpath) else { return false }
        xmlXPathFreeCompExpr(compiled)
        return true
    }

    /// Text content with entities decoded and white space collapsed.
    static func text(_ node: xmlNodePtr) -> String {
        guard let content = xmlNodeGetContent(node) else { return "" }
        defer { seedforge_xml_free(content) }
        return Trim.collapsed(String(cString: content))
    }

    static func attribute(_ name: String, of node: xmlNodePtr) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { seedforge_xml_free(value) }
        return String(cString: value)
    }

    static func line(_ node: xmlNodePtr) -> Int { Int(xmlGetLineNo(node)) }
}
