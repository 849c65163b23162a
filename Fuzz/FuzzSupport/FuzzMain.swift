import CFuzzDriver
import Foundation

/// The entry point every fuzz target shares. Built with `-sanitize=fuzzer,address -DFUZZING`
/// (scripts/fuzz.sh) it hands `body` to libFuzzer, which takes libFuzzer's own flags and
/// corpus folders from the command line; in an ordinary build it replays the files named
/// on the command line once each (a crash input, without the sanitizers), so the targets
/// also build with `swift build --build-tests`.
public enum FuzzMain {
    public static func run(_ body: @escaping (UnsafeBufferPointer<UInt8>) -> Void) -> Never {
        #if FUZZING
            current = body
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
        #else
            let files = CommandLine.arguments.dropFirst()
            guard !files.isEmpty else {
                FileHandle.standardError.write(Data("usage: \(CommandLine.arguments[0]) INPUT...\n".utf8))
                exit(2)
            }
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
                    exit(2)
                }
                Array(data).withUnsafeBufferPointer { body($0) }
                print("\(file): ok")
            }
            exit(0)
        #endif
    }

    #if FUZZING
        nonisolated(unsafe) static var current: ((UnsafeBufferPointer<UInt8>) -> Void)?
    #endif
}

#if FUZZING
    /// libFuzzer's entry point (its own `main`, which the link brings in, calls it too).
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        FuzzMain.current?(UnsafeBufferPointer(start: data, count: size))
        return 0
    }
#endif

/// The repository the targets run in (`make fuzz` runs them from its root): shipped
/// pipelines give the sources their real field mappings.
public enum Repository {
    public static func file(_ relative: String) -> String {
        let path = FileManager.default.currentDirectoryPath + "/" + relative
        guard FileManager.default.fileExists(atPath: path) else {
            FileHandle.standardError.write(Data("run the fuzz targets from the repository root: no \(relative)\n".utf8))
            exit(2)
        }
        return path
    }
}
