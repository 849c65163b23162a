// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "seedforge",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "seedforge", targets: ["seedforge"]),
        .library(name: "SeedForge", targets: ["SeedForge"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        .target(name: "CSeedForgeSupport", linkerSettings: [.linkedLibrary("z"), .linkedLibrary("crypto")]),
        // libxml2 (Debian libxml2-dev): XML and HTML parsing and XPath.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .target(
            name: "SeedForge",
            dependencies: [
                "CSeedForgeSupport",
                "CLibXML2",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "seedforge",
            dependencies: [
                "SeedForge",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "seedforge-query-bench",
            dependencies: ["SeedForge"],
            path: "Benchmarks/QueryBench"
        ),
        // Fuzz targets (scripts/fuzz.sh, `make fuzz`): libFuzzer with the address sanitizer
        // when built with -sanitize=fuzzer,address -DFUZZING; otherwise they replay inputs.
        .target(name: "CFuzzDriver", path: "Fuzz/CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["SeedForge", "CFuzzDriver"], path: "Fuzz/FuzzSupport"),
        .executableTarget(
            name: "seedforge-fuzz-json", dependencies: ["FuzzSupport", "SeedForge"], path: "Fuzz/JSONFuzz"),
        .executableTarget(name: "seedforge-fuzz-csv", dependencies: ["FuzzSupport"], path: "Fuzz/CSVFuzz"),
        .executableTarget(name: "seedforge-fuzz-html", dependencies: ["FuzzSupport"], path: "Fuzz/HTMLFuzz"),
        .executableTarget(
            name: "seedforge-fuzz-pipeline", dependencies: ["FuzzSupport", "SeedForge"], path: "Fuzz/PipelineFuzz"),
        .testTarget(
            name: "SeedForgeTests",
            dependencies: [
                "SeedForge",
                "CLibXML2",
                "CSeedForgeSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
