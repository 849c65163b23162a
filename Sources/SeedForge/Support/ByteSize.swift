import Foundation

/// Sizes in bytes as pipelines write them (`512MiB`, `2 GiB`, `64KiB`, `1000000`) and as
/// messages show them (`1 GiB`, `1000000 bytes`).
public enum ByteSize {
    /// Units by suffix, case-insensitive: binary (KiB = 1024) and decimal (KB = 1000).
    static let units: [(suffix: String, factor: Int)] = [
        ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("tib", 1 << 40),
        ("kb", 1_000), ("mb", 1_000_000), ("gb", 1_000_000_000), ("tb", 1_000_000_000_000),
        ("b", 1), ("", 1),
    ]

    /// A whole number of bytes with an optional unit (spaces allowed before it); nil for
    /// anything else, a fraction or a size that does not fit in 64 bits.
    public static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        guard !digits.isEmpty, let number = Int(digits), let factor = units.first(where: { $0.suffix == unit })?.factor
        else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: factor)
        return overflow ? nil : bytes
    }

    /// The size in the largest binary unit that divides it exactly (`16 MiB`), else in bytes.
    public static func format(_ bytes: Int) -> String {
        for (suffix, factor) in [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        where bytes >= factor && bytes % factor == 0 {
            return "\(bytes / factor) \(suffix)"
        }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }
}
