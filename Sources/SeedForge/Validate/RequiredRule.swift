/// `validate: required`: the field is present and not null; a text must not be empty or
/// only white space (unless `allow-blank: true`).
public struct RequiredRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "required",
        summary: "The field must be present and non-null; text must be non-blank after trimming.",
        keys: ValidateStep.commonKeys + [
            RuleFields.key, KeySpec("allow-blank", "accept empty or white-space-only text (default false)"),
        ],
        details: #"""
            The message says whether the value was missing, null or blank in the source.
            """#,
        example: """
            - validate: required
              collection: shops
              field: [name, address]
            """)

    let fields: [FieldID]
    let allowBlank: Bool

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
        allowBlank = try config.bool("allow-blank") ?? false
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        for field in fields {
            // A value that is neither null nor text is present; text that starts with ASCII
            // other than white space is not blank: both judged on the row borrowed from the
            // record (no retain and release of it a field, no `Value` made).
            let present = Record.withRow(of: record) { row in
                switch row.tag(at: field.index) {
                case .null: return false
                case .string:
                    return row.withText(at: field.index) { $0.first.map { !Trim.isSpaceOrNonASCII($0) } ?? false }
                default: return true
                }
            }
            if present { continue }
            switch record[field] {
            case .null:
                let raw = record.origin.sourcePath(of: findings.schema[field]).flatMap {
                    record.origin.sourceValue(at: $0)
                }
                let name = findings.schema[field].name
                findings.fail(field, "\(name) is required but \(Self.describeAbsence(raw))", value: raw ?? .null)
            case .string(let text) where !allowBlank && Self.isBlank(text):
                findings.fail(field, "\(findings.schema[field].name) is required but blank")
            default:
                break
            }
        }
    }

    /// Whether the text is empty or white space only (`Character.isWhitespace`). A
    /// character is white space when its first scalar is, so text starting with an ASCII
    /// byte other than white space is answered from that byte, without the Unicode
    /// properties; any other text goes character by character.
    static func isBlank(_ text: String) -> Bool {
        if let first = text.utf8.first, !Trim.isSpaceOrNonASCII(first) { return false }
        return text.allSatisfy(\.isWhitespace)
    }

    /// Why a null field is null: absent from the source, written as null, or text that
    /// was blank (and became null when trimmed).
    static func describeAbsence(_ raw: Value?) -> String {
        switch raw {
        case nil: return "missing"
        case .null: return "null"
        case .string: return "blank"
        default: return "null after normalisation"
        }
    }
}
