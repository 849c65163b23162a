import Foundation
import Testing

/// The Spark driver (`cluster/seedforge_spark.py`) in `local[2]` mode: shards as Spark
/// tasks, partials merged as a tree on the executors, the finish on the driver; the dataset
/// is byte for byte the plain run's (manifests without their `run` section).
///
/// `make test` installs Java 17 and pyspark (`scripts/spark-setup.sh`, into
/// `.build-spark/`). Without them the test fails under CI (`CI` set) and is skipped with a
/// printed reason elsewhere.
@Suite("Sharded runs on Spark")
struct SparkRunTests {
    static let venv = CLI.repoRoot.appendingPathComponent(".build-spark/venv")

    @Test(arguments: ["pipelines/products.yml", "pipelines/cities.yml"])
    func sparkLocalRunWritesThePlainRunsDataset(pipeline: String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.venv.path + "/bin/spark-submit") else {
            let reason = "pyspark is not installed: make test installs it (scripts/spark-setup.sh)"
            if !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty {
                Issue.record("\(reason); the Spark test cannot run")
            } else {
                print("skipped: Spark test: \(reason)")
            }
            return
        }
        let dir = try TempDir()
        let name = try ShardedRunTests.name(of: pipeline)
        let plain = try CLI.run(["run", pipeline, "--out", dir.path + "/plain", "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let timings = dir.path + "/timings.json"
        let spark = try CLI.runProgram(
            CLI.repoRoot.appendingPathComponent("cluster/spark-submit.sh").path,
            [
                "--master", "local[2]", "--conf", "spark.ui.enabled=false",
                CLI.repoRoot.appendingPathComponent("cluster/seedforge_spark.py").path,
                CLI.repoRoot.appendingPathComponent(pipeline).path, "--shards", "5", "--fan-in", "2",
                "--partials", dir.path + "/partials", "--out", dir.path + "/spark", "--seedforge", CLI.binary,
                "--timings", timings,
            ], cwd: CLI.repoRoot.path)
        #expect(spark.status == 0, "\(spark.stderr.suffix(3000))")
        ShardedRunTests.expectSameDataset(
            dir.url.appendingPathComponent("plain/\(name)"), dir.url.appendingPathComponent("spark/\(name)"),
            "\(pipeline) on Spark")
        // Five map tasks, merged two at a time on the executors (5 → 3 → 2), then finished.
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: timings))) as? [String: Any])
        #expect((report["mapTaskSeconds"] as? [Double])?.count == 5)
        #expect((report["mergeTaskSeconds"] as? [[Double]])?.map(\.count) == [3, 2])
        // The run's own partials folder is removed, and nothing else.
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir.path + "/partials")) == [])
    }
}
