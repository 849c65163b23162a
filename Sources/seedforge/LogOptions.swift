import ArgumentParser
import Foundation
import Logging
import SeedForge

enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// Output options shared by every command that runs pipelines.
struct LogOptions: ParsableArguments {
    @Flag(name: [.short, .long], help: "Print nothing but errors (no progress, no summary).")
    var quiet = false

    @Flag(name: [.short, .long], help: "Print every step and file read.")
    var verbose = false

    @Option(
        name: .customLong("log-format"),
        help: "Log lines as text for people or json (one object per line) for machines.")
    var logFormat: LogFormat = .text

    /// The live progress line: only when standard error is a terminal, logs are text and
    /// --quiet is not given. It appears once a run has lasted a second
    /// (`SEEDFORGE_PROGRESS_DELAY` seconds, for tests).
    func makeProgress() -> TerminalProgress? {
        guard !quiet, logFormat == .text, isatty(STDERR_FILENO) != 0 else { return nil }
        var size = winsize()
        let columns = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
        let delay = ProcessInfo.processInfo.environment["SEEDFORGE_PROGRESS_DELAY"].flatMap(Double.init) ?? 1
        return TerminalProgress(delay: delay, width: columns)
    }

    /// Progress appears only on a terminal unless asked for; JSON logs always carry the
    /// run's events; --quiet leaves errors only. Log lines go through the progress line,
    /// when there is one, so they do not tear it.
    func makeLogger(progress: TerminalProgress? = nil) -> Logger {
        let level: Logger.Level
        if quiet {
            level = .error
        } else if verbose {
            level = .debug
        } else if logFormat == .json || isatty(STDERR_FILENO) != 0 {
            level = .info
        } else {
            level = .warning
        }
        let format = logFormat
        let write: @Sendable (String) -> Void
        if let progress {
            write = { progress.write($0) }
        } else {
            write = { StandardError.write($0) }
        }
        return Logger(label: "seedforge") { _ in
            LineLogHandler(format: format == .json ? .json : .text, level: level, write: write)
        }
    }

    /// Reports an error the way the chosen log format wants, and returns its exit code.
    func report(_ error: Error, logger: Logger) -> ExitStatus {
        if let list = error as? DefinitionErrors {
            for item in list.errors { _ = report(item, logger: logger) }
            return .usage
        }
        if let item = error as? DefinitionError {
            if logFormat == .json {
                logger.error(
                    "\(item.message)",
                    metadata: ["file": "\(item.file)", "line": "\(item.line)", "column": "\(item.column)"])
            } else {
                StandardError.write(item.description + "\n")
            }
            return .usage
        }
        if let coded = error as? any ExitCoded {
            if let source = coded as? SourceError, logFormat == .json {
                logger.error(
                    "\(source.message)",
                    metadata: [
                        "file": "\(source.location.file)", "line": "\(source.location.line)",
                        "column": "\(source.location.column)",
                    ])
            } else if logFormat == .json {
                logger.error("\(coded.description)")
            } else {
                StandardError.write(coded.description + "\n")
            }
            return coded.exitStatus
        }
        logger.error("internal error: \(error)")
        return .ioOrInternal
    }
}
