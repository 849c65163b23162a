/// `validate: country-code`: an ISO 3166-1 alpha-2 country code, from the list of the
/// 249 officially assigned codes that ships with seedforge (withdrawn codes such as `AN`
/// and `CS` are not in it; user-assigned codes such as GeoNames' `XK` for Kosovo can be
/// allowed with `allow:`). Codes are upper case; `ua` is reported with a suggestion.
public struct CountryCodeRule: Rule {
    public static let spec = KindSpec(
        stage: .validate, name: "country-code",
        summary: "An ISO 3166-1 alpha-2 country code (the assigned codes ship with seedforge).",
        keys: ValidateStep.commonKeys + [
            RuleFields.key,
            KeySpec("allow", "extra codes to accept, e.g. [XK] for Kosovo as GeoNames writes it"),
        ],
        details: #"""
            Checked against the list of the 249 assigned codes that ships with seedforge. Withdrawn
            codes (`AN`, `CS`) and user-assigned ones fail unless allowed (`allow: [XK]` for Kosovo as
            GeoNames writes it); lower case (`ua`) fails with the upper-case suggestion.
            """#,
        example: """
            - validate: country-code
              collection: cities
              field: country
              allow: [XK]
            """)

    /// ISO 3166-1 alpha-2, the officially assigned codes (249).
    public static let assigned: Set<String> = [
        "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ",
        "BA", "BB", "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS",
        "BT", "BV", "BW", "BY", "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN",
        "CO", "CR", "CU", "CV", "CW", "CX", "CY", "CZ", "DE", "DJ", "DK", "DM", "DO", "DZ", "EC", "EE",
        "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK", "FM", "FO", "FR", "GA", "GB", "GD", "GE", "GF",
        "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS", "GT", "GU", "GW", "GY", "HK", "HM",
        "HN", "HR", "HT", "HU", "ID", "IE", "IL", "IM", "IN", "IO", "IQ", "IR", "IS", "IT", "JE", "JM",
        "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN", "KP", "KR", "KW", "KY", "KZ", "LA", "LB", "LC",
        "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY", "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MK",
        "ML", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ", "NA",
        "NC", "NE", "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG",
        "PH", "PK", "PL", "PM", "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW",
        "SA", "SB", "SC", "SD", "SE", "SG", "SH", "SI", "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS",
        "ST", "SV", "SX", "SY", "SZ", "TC", "TD", "TF", "TG", "TH", "TJ", "TK", "TL", "TM", "TN", "TO",
        "TR", "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY", "UZ", "VA", "VC", "VE", "VG", "VI",
        "VN", "VU", "WF", "WS", "YE", "YT", "ZA", "ZM", "ZW",
    ]

    let fields: [FieldID]
    let allowed: Set<String>
    /// The allowed codes that are two ASCII capitals, as bits of a 26 × 26 table (`AA` bit
    /// 0, `ZZ` bit 675): a record's code is found there from the row's two bytes, without a
    /// `String` made and hashed. Anything else goes to `allowed` and the messages.
    let capitals: [UInt64]

    public init(config: ConfigMap, plan: PipelinePlan, collection: CollectionID) throws {
        fields = try RuleFields.resolve(config, plan, collection)
        let extra = try config.strings("allow") ?? []
        if let node = config["allow"], let bad = extra.first(where: { $0.count != 2 || $0.uppercased() != $0 }) {
            throw node.error("'allow' takes two-letter upper-case codes, found '\(bad)'")
        }
        allowed = Self.assigned.union(extra)
        var capitals = [UInt64](repeating: 0, count: (26 * 26 + 63) / 64)
        for code in allowed {
            guard let bit = Self.capitalsBit(Array(code.utf8)) else { continue }
            capitals[bit >> 6] |= 1 << UInt64(bit & 63)
        }
        self.capitals = capitals
    }

    /// The bit of a two-capital code in `capitals`; nil for any other text.
    static func capitalsBit<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? {
        guard bytes.count == 2 else { return nil }
        let first = bytes[bytes.startIndex]
        let second = bytes[bytes.index(after: bytes.startIndex)]
        guard (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first),
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(second)
        else { return nil }
        return Int(first - UInt8(ascii: "A")) * 26 + Int(second - UInt8(ascii: "A"))
    }

    /// Whether the field holds an allowed two-capital code, read from the borrowed row.
    func isAllowedCapitals(_ record: Record, _ field: FieldID) -> Bool {
        Record.withRow(of: record) { row in
            guard row.tag(at: field.index) == .string else { return false }
            return row.withText(at: field.index) { text in
                guard let bit = Self.capitalsBit(text) else { return false }
                return capitals[bit >> 6] & (1 << UInt64(bit & 63)) != 0
            }
        }
    }

    public func check(_ record: Record, _ findings: inout RuleFindings) {
        for field in fields {
            if isAllowedCapitals(record, field) { continue }
            let value = record[field]
            guard !value.isNull else { continue }
            var name: String { findings.schema[field].name }
            guard case .string(let code) = value else {
                findings.fail(field, "\(name) must be a country code text, found \(value.typeName)")
                continue
            }
            guard !allowed.contains(code) else { continue }
            if code.isEmpty {
                findings.fail(field, "\(name) is empty; expected an ISO 3166-1 alpha-2 country code")
            } else if allowed.contains(code.uppercased()) {
                findings.fail(field, "\(name) \(RuleFields.describe(value)) must be upper case: \(code.uppercased())")
            } else {
                findings.fail(field, "\(name) \(RuleFields.describe(value)) is not an ISO 3166-1 alpha-2 country code")
            }
        }
    }
}
