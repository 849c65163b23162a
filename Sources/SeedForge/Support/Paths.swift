import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Paths as shown to users and written into datasets: relative to the working folder
/// when the file is inside it, so messages and outputs do not depend on where the
/// checkout lives.
public enum Paths {
    public static func display(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
        if absolute.hasPrefix(cwd + "/") { return String(absolute.dropFirst(cwd.count + 1)) }
        return absolute
    }

    /// `path` relative to the folder `base` (`../Fixtures/shops.json`), the way a
    /// pipeline's own `path:` values are written. Independent of the working folder.
    public static func relative(_ path: String, to base: String) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let from = URL(fileURLWithPath: base).standardizedFileURL.pathComponents
        var common = 0
        while common < min(target.count, from.count), target[common] == from[common] { common += 1 }
        let ups = Array(repeating: "..", count: from.count - common)
        return (ups + target[common...]).joined(separator: "/")
    }
}

/// File name patterns (`*`, `?`, `[...]`) expanded by the C library's glob(3), sorted
/// in natural order so `page-2` comes before `page-10`.
public enum Glob {
    public static func expand(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        var paths: [String] = []
        for index in 0..<Int(result.gl_pathc) {
            if let path = result.gl_pathv[index] { paths.append(String(cString: path)) }
        }
        return paths.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted { naturalLess($0, $1) }
    }

    /// Compares runs of digits by their numeric value, everything else by bytes.
    public static func naturalLess(_ a: String, _ b: String) -> Bool {
        var i = Array(a.utf8)[...]
        var j = Array(b.utf8)[...]
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        while let x = i.first, let y = j.first {
            if isDigit(x) && isDigit(y) {
                let left = i.prefix(while: isDigit)
                let right = j.prefix(while: isDigit)
                let l = left.drop(while: { $0 == 0x30 })
                let r = right.drop(while: { $0 == 0x30 })
                if l.count != r.count { return l.count < r.count }
                if !l.elementsEqual(r) { return l.lexicographicallyPrecedes(r) }
                i = i.dropFirst(left.count)
                j = j.dropFirst(right.count)
            } else {
                if x != y { return x < y }
                i = i.dropFirst()
                j = j.dropFirst()
            }
        }
        if i.isEmpty != j.isEmpty { return i.isEmpty }
        // Equal in natural order (`page-02`, `page-2`): fall back to byte order.
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
