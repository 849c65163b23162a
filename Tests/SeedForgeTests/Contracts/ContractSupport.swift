import Foundation
import Testing

/// Consumer contracts: each app's own `Codable` model, written the way its write-up in
/// `shared/seeds/` describes it, decodes the dataset a shipped pipeline emits from the
/// shipped fixtures, with Foundation's `JSONDecoder`, as the app would after bundling it.
/// When a pipeline changes its output shape, one of these fails before an app does.
enum Contract {
    /// Runs one shipped pipeline (`pipelines/NAME.yml`) with the real binary into a fresh
    /// folder; the dataset is at `folder/NAME/`.
    static func run(_ name: String) throws -> TempDir {
        let dir = try TempDir()
        let result = try CLI.run(
            ["run", "pipelines/\(name).yml", "--out", dir.path, "--quiet"], cwd: CLI.repoRoot.path)
        #expect(result.status == 0, "\(result.stderr)")
        return dir
    }

    /// Decodes an emitted file of a dataset as the app's type.
    static func decode<T: Decodable>(
        _ type: T.Type, _ file: String, in dir: TempDir, decoder: JSONDecoder = JSONDecoder()
    ) throws -> T {
        try decoder.decode(type, from: dir.bytes(file))
    }

    /// RFC 3339 instants with or without a fraction of a second (`2025-07-15T18:45:10.250Z`),
    /// as an app reading seed timestamps must accept.
    static var rfc3339: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            let plain = ISO8601DateFormatter()
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions.insert(.withFractionalSeconds)
            guard let date = plain.date(from: text) ?? fractional.date(from: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "not an RFC 3339 instant: \(text)"))
            }
            return date
        }
        return decoder
    }
}
