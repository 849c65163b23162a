"""Runs a seedforge pipeline on Apache Spark: shards as map tasks, partials merged as a tree
on the executors, the dataset finished on the driver.

    spark-submit cluster/seedforge_spark.py PIPELINE --shards 8 --partials /shared/parts --out out

Every node must see the pipeline, its inputs and the partials folder at the same paths (a
shared mount; in local mode, this machine's folders). Each run writes its partials into a
new folder of its own under --partials (PIPELINE-RANDOM), and removes only that one. The seedforge binary is either present
on every node (--seedforge PATH, default `seedforge` on PATH) or shipped with the job
(--ship-binary: Spark copies it to each executor).

A map task runs `seedforge run PIPELINE --shard I/N --partial PARTIALS/shard-I`; a failed
task raises, Spark runs it again (spark.task.maxFailures), and the retry writes the same
partial (a partial is written beside its folder and renamed into place). Merges combine
up to --fan-in partials at a time (`seedforge merge ... --partial`) until one is left; the
driver then runs `seedforge merge FINAL --out OUT`, which writes the dataset under the
dataset's lock, byte for byte what a plain `seedforge run` writes. The exit code is the
finish's; a map or merge task that failed on every try (a malformed input fails every try:
seedforge's exit codes do not tell Spark which failures are worth retrying) ends the
application with exit 1 and seedforge's message.

With --timings FILE the driver writes the wall time of each phase and of every task (JSON).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import uuid


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="seedforge_spark.py",
        description="Run a seedforge pipeline as Spark tasks (shards, tree merge, finish on the driver).",
    )
    parser.add_argument("pipeline", help="the pipeline definition (YAML), at a path every node sees")
    parser.add_argument("--shards", type=int, required=True, help="number of map tasks (shards)")
    parser.add_argument("--partials", required=True, help="folder for the partial results, seen by every node")
    parser.add_argument("--out", required=True, help="folder that receives the dataset (as seedforge run --out)")
    parser.add_argument("--seedforge", default="seedforge", help="the seedforge binary on the nodes (default: on PATH)")
    parser.add_argument("--ship-binary", action="store_true",
                        help="ship --seedforge (a local file) with the job instead of expecting it on the nodes")
    parser.add_argument("--fan-in", type=int, default=4, help="partials combined by one merge task (default 4)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads each seedforge task uses (default 1: one per Spark core)")
    parser.add_argument("--master", help="Spark master when not given to spark-submit, e.g. local[2]")
    parser.add_argument("--timings", help="write the phases' and tasks' wall times to this JSON file")
    parser.add_argument("--keep-partials", action="store_true", help="leave the partials folder after finishing")
    arguments = parser.parse_args(argv)
    if arguments.shards < 1:
        parser.error("--shards must be at least 1")
    if arguments.fan_in < 2:
        parser.error("--fan-in must be at least 2")
    return arguments


def run_seedforge(binary, arguments):
    """Runs seedforge; a non-zero exit raises with its message, so Spark retries the task."""
    started = time.monotonic()
    result = subprocess.run([binary] + arguments, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(
            "seedforge %s exited with %d:\n%s" % (" ".join(arguments), result.returncode, result.stderr.strip())
        )
    return time.monotonic() - started


def plan_merges(paths, fan_in, folder, level):
    """Groups partial paths into merges of at most fan_in; returns (inputs, output) pairs."""
    groups = []
    for start in range(0, len(paths), fan_in):
        inputs = paths[start:start + fan_in]
        groups.append((inputs, os.path.join(folder, "merge-%d-%d" % (level, start // fan_in))))
    return groups


def main(argv):
    arguments = parse_arguments(argv)
    from pyspark import SparkConf, SparkContext, SparkFiles

    conf = SparkConf().setAppName("seedforge " + os.path.basename(arguments.pipeline))
    if arguments.master:
        conf = conf.setMaster(arguments.master)
    context = SparkContext(conf=conf)
    context.setLogLevel("WARN")

    pipeline = os.path.abspath(arguments.pipeline)
    # This run's partials go in a folder of their own under --partials, the only one removed.
    partials = os.path.join(os.path.abspath(arguments.partials),
                            "%s-%s" % (os.path.splitext(os.path.basename(pipeline))[0], uuid.uuid4().hex[:12]))
    os.makedirs(partials)
    shards = arguments.shards
    threads = str(arguments.threads)
    if arguments.ship_binary:
        context.addFile(os.path.abspath(arguments.seedforge))
        shipped = os.path.basename(arguments.seedforge)

        def binary():
            path = SparkFiles.get(shipped)
            os.chmod(path, 0o755)
            return path
    else:
        local = arguments.seedforge

        def binary():
            return local

    timings = {"shards": shards, "fanIn": arguments.fan_in}

    def map_task(index):
        folder = os.path.join(partials, "shard-%d" % index)
        seconds = run_seedforge(
            binary(),
            ["run", pipeline, "--shard", "%d/%d" % (index, shards), "--partial", folder,
             "--threads", threads, "--quiet"],
        )
        return folder, seconds

    def failed(phase, error):
        # Spark wraps the task's exception; seedforge's own message is the useful part.
        text = str(error)
        start = text.find("seedforge ")
        print("seedforge_spark: the %s phase failed: %s" % (phase, text[start:start + 4000] if start >= 0 else text),
              file=sys.stderr)
        context.stop()
        return 1

    started = time.monotonic()
    try:
        mapped = context.parallelize(range(shards), shards).map(map_task).collect()
    except Exception as error:  # a task failed more than spark.task.maxFailures times
        return failed("map", error)
    timings["mapSeconds"] = time.monotonic() - started
    timings["mapTaskSeconds"] = [seconds for _, seconds in mapped]

    def merge_task(group):
        inputs, output = group
        seconds = run_seedforge(binary(), ["merge"] + inputs + ["--partial", output, "--threads", threads, "--quiet"])
        return output, seconds

    started = time.monotonic()
    level = 0
    current = [folder for folder, _ in mapped]
    timings["mergeTaskSeconds"] = []
    while len(current) > arguments.fan_in:
        groups = plan_merges(current, arguments.fan_in, partials, level)
        try:
            merged = context.parallelize(groups, len(groups)).map(merge_task).collect()
        except Exception as error:
            return failed("merge", error)
        timings["mergeTaskSeconds"].append([seconds for _, seconds in merged])
        current = [output for output, _ in merged]
        level += 1
    timings["mergeSeconds"] = time.monotonic() - started
    context.stop()

    # The finish: the steps that need every record, then the outputs, on the driver.
    started = time.monotonic()
    driver_binary = os.path.abspath(arguments.seedforge) if arguments.ship_binary else arguments.seedforge
    finish = subprocess.run([driver_binary, "merge"] + current + ["--out", arguments.out])
    timings["finishSeconds"] = time.monotonic() - started
    if arguments.timings:
        with open(arguments.timings, "w") as handle:
            json.dump(timings, handle, indent=2)
    if finish.returncode == 0 and not arguments.keep_partials:
        shutil.rmtree(partials, ignore_errors=True)
    return finish.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
