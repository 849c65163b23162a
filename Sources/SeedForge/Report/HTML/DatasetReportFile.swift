import Foundation

/// Writing the HTML report of a dataset folder to a file (atomically) or to standard
/// output (`-`), for `seedforge report` and `run --report`.
public enum DatasetReportFile {
    /// `out/cities` → `out/cities.html`, beside the folder (never inside it: the folder
    /// is the dataset, replaced as a whole by the next run).
    public static func defaultPath(for folder: String) -> String {
        var trimmed = folder
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed + ".html"
    }

    /// Renders the report of `folder` and writes it to `target`; returns its size in bytes.
    @discardableResult
    public static func write(folder: String, to target: String) throws -> Int {
        let html = try HTMLReport.render(DatasetFolder.read(path: folder))
        let data = Data(html.utf8)
        if target == "-" {
            FileHandle.standardOutput.write(data)
            return data.count
        }
        do {
            try data.write(to: URL(fileURLWithPath: target), options: .atomic)
        } catch {
            throw IOFailure("cannot write the report to \(target): \(error.localizedDescription)")
        }
        return data.count
    }
}
