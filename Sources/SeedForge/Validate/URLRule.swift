import Foundation

/// `validate: url`: an absolute URL with an allowed scheme (http and https by default)
/// and a host. Relative links, `www.example.com` without a scheme, spaces and
/// `javascript:` links are all rejected.
public struct URLRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "url",
        summary: "An absolute URL with an allowed scheme and a host.",
        keys: ValidateStep.commonKeys + [
            RuleFields.key,
            KeySpec("schemes", "allowed schemes (default [http, https])"),
        ],
        details: #"""
            `www.example.com` without a scheme fails.
            """#,
        example: """
            - validate: url
              collection: shops
              field: [website, picture, google_maps_link]
            """)

    let fields: [FieldID]
    let schemes: [String]

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
        schemes = try config.strings("schemes")?.map { $0.lowercased() } ?? ["http", "https"]
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        for field in fields {
            guard case .string(let text) = record[field] else { continue }
            if let problem = problem(with: text) {
                findings.fail(field, "\(findings.schema[field].name) is not a valid URL: \(problem)")
            }
        }
    }

    func problem(with text: String) -> String? {
        if text.isEmpty { return "it is empty" }
        if text.contains(where: { $0.isWhitespace }) { return "it contains white space" }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            return text.contains("://")
                ? "it cannot be parsed"
                : "it has no scheme (expected \(schemes.map { $0 + "://" }.joined(separator: " or ")))"
        }
        guard schemes.contains(scheme) else {
            return "scheme '\(scheme)' is not one of \(schemes.joined(separator: ", "))"
        }
        guard let host = components.host, !host.isEmpty else { return "it has no host" }
        if host.hasPrefix(".") || host.hasSuffix("..") || host.contains("..") { return "host '\(host)' is malformed" }
        return nil
    }
}
