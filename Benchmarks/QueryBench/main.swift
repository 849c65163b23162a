import Foundation
import SeedForge

// Query latency on an emitted dataset, in process (what an app or server pays per
// search once the dataset is open): opens DATASET, then runs every prefix of 1 to 3
// letters drawn from the dataset's own keys, each for the first page of LIMIT results,
// and prints the median and 99th percentile in microseconds as JSON.
let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: seedforge-query-bench DATASET [LIMIT]\n".utf8))
    exit(2)
}
let limit = arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20
let opened = ContinuousClock.now
let query = try PrefixQuery(folder: arguments[1])
let openSeconds = (ContinuousClock.now - opened) / .seconds(1)
let samples = try query.search("", limit: 5_000).compactMap { match -> String? in
    match.record.value(at: FieldPath(components: [.key(query.keyField)]))?.string
}
var prefixes: [String] = []
for (index, key) in samples.enumerated() where !key.isEmpty {
    prefixes.append(String(key.prefix(1 + index % 3)))
}
var micros: [Double] = []
for prefix in prefixes {
    let start = ContinuousClock.now
    let matches = try query.search(prefix, limit: limit)
    let elapsed = ContinuousClock.now - start
    precondition(!matches.isEmpty)
    micros.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
}
micros.sort()
let median = micros[micros.count / 2]
let p99 = micros[min(micros.count - 1, micros.count * 99 / 100)]
print(
    #"{"queries": \#(micros.count), "limit": \#(limit), "open_ms": \#(String(format: "%.2f", openSeconds * 1000)), "median_us": \#(String(format: "%.1f", median)), "p99_us": \#(String(format: "%.1f", p99))}"#
)
