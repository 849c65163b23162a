import CLibXML2
import Foundation

/// `normalize: convert`: the field converters of the `html` source, for any source kind:
/// a price text to an exact amount or its ISO 4217 currency, a link to an absolute URL,
/// text to a number, or `text`: HTML entities decoded (`&amp;`, `&eacute;`, `&#233;`) and
/// white space collapsed. A value that does not convert rejects the record (rule `price`,
/// `url` or `number`).
public struct Convert: RecordStep {
    public static let spec = KindSpec(
        stage: .normalize, name: "convert",
        summary:
            "Convert a text field: price-amount, price-currency, url, number, integer, or text (entities decoded, white space collapsed).",
        keys: [
            CommonKeys.collection,
            KeySpec("field", required: true, "the text field to convert"),
            KeySpec(
                "to", required: true,
                "price-amount (exact decimal), price-currency (ISO 4217), url, number, integer or text"),
            KeySpec("into", "a new field for the result (default: the field itself)"),
            KeySpec("base-url", "for to: url, the address relative links are resolved against"),
        ],
        details: #"""
            The converters of the [html source](#html-pages), for any source: `price-amount`, an
            exact decimal; `price-currency`, the ISO 4217 code; `url`, absolute, against `base-url`;
            `number`; `integer`; `text`, HTML entities decoded and white space collapsed. A value that
            does not convert rejects the record (rule `price`, `url` or `number`).
            """#,
        example: """
            - normalize: convert
              collection: shops
              field: description
              to: text
              into: plainDescription
            """)

    public typealias Target = Converters.Target

    public let collection: CollectionID
    let field: FieldID
    let into: FieldID
    let target: Target
    let base: URL?
    let name: String

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        field = try plan.field(config, key: "field", in: collection)
        name = plan.schema(collection)[field].name
        target =
            try config.choice("to", Target.self, choices: Target.allCases)
            ?? { throw config.error("\(config.what) is missing required key 'to'") }()
        if let intoNode = config["into"] {
            let type: FieldType
            switch target {
            case .priceAmount: type = .decimal
            case .number: type = .number
            case .integer: type = .integer
            default: type = .string
            }
            into = try plan.addField(intoNode.string("'into'"), type: type, to: collection, at: intoNode)
        } else {
            into = field
        }
        if let text = try config.string("base-url") {
            guard let url = URL(string: text), url.scheme != nil else {
                throw config["base-url"]!.error("'base-url' must be an absolute URL")
            }
            base = url
        } else {
            base = nil
        }
    }

    public func change(_ state: RunState) throws -> RecordChange {
        let spec = state.schemas[loaded: collection][field]
        return RecordChange(step: "normalize: convert", parallel: true) { record in
            guard case .string(let text) = record[field] else {
                if into != field { record[into] = .null }
                return []
            }
            switch Converters.convert(text, to: target, base: base) {
            case .success(let value):
                record[into] = value
                return []
            case .failure(let failure):
                return [
                    Finding(
                        rule: failure.rule, message: "\(name): \(failure.message)",
                        location: record.origin.location(ofField: spec), field: name, value: .string(text))
                ]
            }
        }
    }

    /// HTML entities decoded: named ones from libxml2's HTML table, and numeric ones.
    public static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            guard let semicolon = after.prefix(32).firstIndex(of: ";") else {
                out += "&"
                rest = after
                continue
            }
            let name = String(after[..<semicolon])
            var scalar: Unicode.Scalar?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
            } else if name.hasPrefix("#") {
                scalar = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init)
            } else if let entity = htmlEntityLookup(name) {
                scalar = Unicode.Scalar(entity.pointee.value)
            }
            if let scalar {
                out.unicodeScalars.append(scalar)
                rest = after[after.index(after: semicolon)...]
            } else {
                out += "&"
                rest = after
            }
        }
        return out + rest
    }
}
