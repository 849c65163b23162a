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

    /// Progress appears only on a terminal unless asked for; JSON logs always carry the
    /// run's events; --quiet leaves errors only.
    func makeLogger() -> Logger {
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
        return Logger(label: "seedforge") { _ in
            LineLogHandler(format: format == .json ? .json : .text, level: level)
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
