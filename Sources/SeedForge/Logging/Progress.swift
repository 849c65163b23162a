import Foundation

/// What a run is doing, told as it goes: the stage ("ingest cities", "validate: range
/// cities", "write outputs"), how many items of it are done (files, records, outputs) of
/// how many when known, how many bytes of how many, and records read. The run calls it
/// from any thread; a display (`TerminalProgress`) shows it.
public protocol ProgressObserver: AnyObject, Sendable {
    func begin(stage: String, unit: String, total: Int?, totalBytes: Int?)
    /// `items` more done, `bytes` more read, `records` more read.
    func advance(items: Int, bytes: Int, records: Int)
    /// The total is no longer known (a source found a link to one more page).
    func totalUnknown()
    /// The run is over (finished or failed): the display goes away.
    func finish()
}

/// A live progress line on a terminal, redrawn in place on standard error:
///
///     ingest cities: 12 of 42 files · 5.1 MB of 21.0 MB · 61,234 records · 8.3 MB/s · ETA 2 s
///
/// Nothing is drawn before the run has lasted `delay` seconds (a short run prints no
/// progress at all), and at most ten times a second; `finish` erases the line. Log lines
/// written meanwhile go through `write`, which erases the line, writes, and redraws.
/// Only make one when standard error is a terminal and the user did not ask for quiet.
public final class TerminalProgress: ProgressObserver, @unchecked Sendable {
    private let lock = NSLock()
    private let started = Date()
    private let delay: Double
    private let output: @Sendable (String) -> Void
    private let width: Int
    private var stage = ""
    private var unit = ""
    private var total: Int?
    private var totalBytes: Int?
    private var done = 0
    private var bytes = 0
    private var records = 0
    private var stageStarted = Date()
    private var lastDraw: Date?
    private var shown = false

    public init(
        delay: Double = 1, width: Int = 100, output: @escaping @Sendable (String) -> Void = StandardError.write
    ) {
        self.delay = delay
        self.width = max(20, width)
        self.output = output
    }

    public func begin(stage: String, unit: String, total: Int?, totalBytes: Int?) {
        lock.withLock {
            self.stage = stage
            self.unit = unit
            self.total = total
            self.totalBytes = totalBytes
            done = 0
            bytes = 0
            records = 0
            stageStarted = Date()
            drawIfDue(force: true)
        }
    }

    public func advance(items: Int, bytes: Int, records: Int) {
        lock.withLock {
            done += items
            self.bytes += bytes
            self.records += records
            drawIfDue(force: false)
        }
    }

    public func totalUnknown() {
        lock.withLock {
            total = nil
            totalBytes = nil
        }
    }

    public func finish() {
        lock.withLock {
            if shown { output("\r\u{1B}[K") }
            shown = false
        }
    }

    /// Writes a log line without tearing the progress line.
    public func write(_ text: String) {
        lock.withLock {
            if shown { output("\r\u{1B}[K") }
            output(text)
            if shown { output(line()) }
        }
    }

    private func drawIfDue(force: Bool) {
        let now = Date()
        guard now.timeIntervalSince(started) >= delay else { return }
        if !force, let lastDraw, now.timeIntervalSince(lastDraw) < 0.1 { return }
        lastDraw = now
        shown = true
        output("\r\u{1B}[K" + line())
    }

    /// The line as it is now, cut to the terminal's width.
    func line() -> String {
        var parts: [String] = []
        if let total {
            parts.append("\(groupedDigits(done)) of \(groupedDigits(total)) \(unit)")
        } else if done > 0 {
            parts.append("\(groupedDigits(done)) \(unit)")
        }
        if let totalBytes, totalBytes > 0 {
            parts.append("\(Self.size(bytes)) of \(Self.size(totalBytes))")
        } else if bytes > 0 {
            parts.append(Self.size(bytes))
        }
        if records > 0 && unit != "records" { parts.append("\(groupedDigits(records)) records") }
        let elapsed = Date().timeIntervalSince(stageStarted)
        if elapsed >= 0.2 {
            if bytes > 0 {
                parts.append("\(Self.size(Int(Double(bytes) / elapsed)))/s")
            } else if done > 0 {
                parts.append("\(groupedDigits(Int(Double(done) / elapsed))) \(unit)/s")
            }
            let remaining: Double?
            if let totalBytes, totalBytes > 0, bytes > 0 {
                remaining = elapsed * Double(totalBytes - bytes) / Double(bytes)
            } else if let total, total > 0, done > 0 {
                remaining = elapsed * Double(total - done) / Double(done)
            } else {
                remaining = nil
            }
            if let remaining { parts.append("ETA \(Int(remaining.rounded(.up))) s") }
        }
        var text = stage + (parts.isEmpty ? "" : ": " + parts.joined(separator: " · "))
        if text.count > width - 1 { text = String(text.prefix(width - 2)) + "…" }
        return text
    }

    /// `812 bytes`, `4.2 KB`, `21.0 MB`, `1.3 GB`.
    static func size(_ bytes: Int) -> String {
        if bytes < 1_000 { return "\(bytes) bytes" }
        if bytes < 1_000_000 { return String(format: "%.1f KB", Double(bytes) / 1_000) }
        if bytes < 1_000_000_000 { return String(format: "%.1f MB", Double(bytes) / 1_000_000) }
        return String(format: "%.1f GB", Double(bytes) / 1_000_000_000)
    }
}
