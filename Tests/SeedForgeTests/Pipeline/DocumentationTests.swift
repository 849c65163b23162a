import Foundation
import Testing

@testable import SeedForge

/// The README is the pipeline format's reference: every kind and every key must be in it.
@Suite("Documentation")
struct DocumentationTests {
    @Test func readmeDocumentsEveryKindAndKey() throws {
        let readme = try String(contentsOf: CLI.repoRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for spec in Registry.allSpecs {
            #expect(readme.contains("**`\(spec.name)`**"), "README lacks kind \(spec.name)")
            for key in spec.keys {
                #expect(readme.contains("`\(key.name)`"), "README lacks key \(key.name) of \(spec.name)")
            }
        }
        // Every top-level key has a row in "Top-level keys", every limit a row in "Input limits".
        for key in Loader.topKeys + InputLimits.keys {
            #expect(readme.contains("| `\(key)` |"), "README lacks key \(key)")
        }
        for code in [0, 1, 2, 3] { #expect(readme.contains("| \(code) |")) }
        #expect(readme.hasPrefix("# seedforge\n\n```sh\nmake run"))
    }
}
