import Foundation
import Testing

@testable import SeedForge

/// The live progress line of `seedforge run`: drawn in place on a terminal (a
/// pseudo-terminal made by util-linux's `script`), never without one, never with
/// `--quiet`. `SEEDFORGE_PROGRESS_DELAY=0` shows it from the start (the fixtures run in
/// well under the usual one second).
@Suite("Progress line on a terminal")
struct ProgressLineTests {
    static let script = "/usr/bin/script"

    /// Runs the real binary under a pseudo-terminal; returns everything it wrote there.
    static func underTerminal(_ arguments: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: script) else {
            Issue.record("util-linux's script is missing (Debian: bsdutils); it makes the pseudo-terminal")
            return ""
        }
        let command = "SEEDFORGE_PROGRESS_DELAY=0 \(CLI.binary) \(arguments)"
        let result = try CLI.runProgram(script, ["-qec", command, "/dev/null"])
        #expect(result.status == 0, "\(result.stdout)")
        return result.stdout
    }

    @Test func aTerminalSeesTheLineRedrawnInPlace() throws {
        let dir = try TempDir()
        let screen = try Self.underTerminal("run pipelines/cities.yml --out \(dir.path)")
        #expect(screen.contains("\r\u{1B}[Kingest cities: 0 of 4 files · 0 bytes of 4.3 KB"), "\(screen)")
        #expect(screen.contains("ingest cities: 4 of 4 files · 4.3 KB of 4.3 KB · 35 records"), "\(screen)")
        #expect(screen.contains("\r\u{1B}[Kaggregate: sort cities: 0 of 24 records"))
        #expect(screen.contains("\r\u{1B}[Kwrite outputs: 0 of 4 outputs"))
        // Erased before the summary line.
        #expect(screen.contains("\r\u{1B}[Kcities: wrote 24 cities"))
    }

    @Test func quietOrNoTerminalMeansNoLine() throws {
        let dir = try TempDir()
        let quiet = try Self.underTerminal("run pipelines/cities.yml --out \(dir.path) --force --quiet")
        #expect(!quiet.contains("ingest cities"))
        #expect(!quiet.contains("\u{1B}[K"))
        let piped = try CLI.run(
            ["run", "pipelines/cities.yml", "--out", dir.path, "--force"],
            environment: ["SEEDFORGE_PROGRESS_DELAY": "0"])
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("\u{1B}[K") && !piped.stderr.contains("\r"))
        #expect(piped.stderr.isEmpty, "\(piped.stderr)")
        #expect(piped.stdout.hasPrefix("cities: wrote 24 cities"))
    }

    @Test func theLineSaysWhatIsKnown() {
        final class Screen: @unchecked Sendable { var text = "" }
        let screen = Screen()
        let progress = TerminalProgress(delay: 0, width: 200) { screen.text += $0 }
        progress.begin(stage: "ingest cities", unit: "files", total: 4, totalBytes: 4_000_000)
        progress.advance(items: 1, bytes: 1_000_000, records: 61_234)
        #expect(progress.line().hasPrefix("ingest cities: 1 of 4 files · 1.0 MB of 4.0 MB · 61,234 records"))
        progress.totalUnknown()
        #expect(progress.line().hasPrefix("ingest cities: 1 files · 1.0 MB · 61,234 records"))
        progress.write("seedforge: a log line\n")
        #expect(screen.text.hasSuffix("\r\u{1B}[Kseedforge: a log line\n" + progress.line()))
        progress.finish()
        #expect(screen.text.hasSuffix("\r\u{1B}[K"))
        let narrow = TerminalProgress(delay: 0, width: 30) { _ in }
        narrow.begin(stage: "validate: country-code cities", unit: "records", total: 240_000, totalBytes: nil)
        #expect(narrow.line().count == 29)
        // A short run: nothing before the delay.
        let late = Screen()
        let waiting = TerminalProgress(delay: 3_600) { late.text += $0 }
        waiting.begin(stage: "ingest cities", unit: "files", total: 4, totalBytes: nil)
        waiting.advance(items: 4, bytes: 10, records: 35)
        waiting.finish()
        #expect(late.text.isEmpty)
    }
}
