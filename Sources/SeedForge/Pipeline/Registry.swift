/// Every kind seedforge knows, by stage. Adding a kind is one line here plus its file.
public enum Registry {
    public static let sources: [any SourceKind.Type] = [
        JSONSource.self, NDJSONSource.self, CSVSource.self, TSVSource.self, HTMLSource.self,
    ]
    public static let rules: [any Rule.Type] = [
        RequiredRule.self, RangeRule.self, StepRule.self, LengthRule.self, URLRule.self,
        TimestampRule.self, EnumRule.self, UniqueRule.self, PatternRule.self, CountryCodeRule.self,
        OrderRule.self, OnlyWhenRule.self, DateRule.self,
    ]
    public static let normalizers: [any Step.Type] = [
        Trim.self, UnicodeNormalize.self, StableID.self, SearchKey.self, Convert.self, MapValues.self, SetValues.self,
        Template.self, Coalesce.self, Replace.self, ToBoolean.self, Split.self, RepairText.self, Unnest.self,
    ]
    public static let enrichers: [any Step.Type] = [RatingSummary.self, Nearest.self, Lookup.self]
    public static let aggregators: [any Step.Type] = [Dedupe.self, Sort.self, GroupStats.self, Append.self]
    public static let formats: [any OutputFormat.Type] = [
        JSONFormat.self, NDJSONFormat.self, CSVFormat.self, TextFormat.self, SQLiteFormat.self, PagesFormat.self,
        PrefixIndexFormat.self,
    ]

    /// The specs of every kind, in stage order (for docs and `seedforge kinds`).
    public static var allSpecs: [KindSpec] {
        sources.map { $0.spec } + rules.map { $0.spec } + normalizers.map { $0.spec }
            + enrichers.map { $0.spec } + aggregators.map { $0.spec } + formats.map { $0.spec }
    }

    static func steps(of stage: Stage) -> [any Step.Type] {
        switch stage {
        case .normalize: return normalizers
        case .enrich: return enrichers
        case .aggregate: return aggregators
        default: return []
        }
    }

    /// The kind names usable under a stage key of `steps:`.
    static func names(of stage: Stage) -> [String] {
        stage == .validate ? rules.map { $0.spec.name } : steps(of: stage).map { $0.spec.name }
    }
}
