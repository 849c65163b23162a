#!/usr/bin/env python3
"""User-space instructions of the shipped cities' first run, counted by valgrind's
callgrind: a figure that does not move with the machine's load, for changes worth 1 to 3%
of the CPU, which paired timings on this shared 2-core machine cannot tell apart (single
pairs spread from 0.7x to 1.5x).

    python3 Benchmarks/instructions.py [BASE_BINARY] [BINARY]

BINARY defaults to .build/release/seedforge (`make bench-instructions` builds it). With a
BASE_BINARY too, both are counted and the differences printed. Each count is one run of
`seedforge run shipped-200k.yml` into a fresh folder (about 85 s under callgrind); two
counts of the same build agree to about 0.02%.

What the figure leaves out: the kernel's work (the page files' creation and writeback),
waiting on memory and locks, and the threads' overlap. SHA-256 runs without the CPU's
SHA instructions under valgrind, so libcrypto counts about four times its share of a real
run. Read it beside a profile (`perf record`) and timed pairs, not instead of them.
Each count removes its run's dataset (23,256 page files) when done: on this machine's disk,
files created in the minutes after so many deletions cost several times more (README, File
creation on this machine), so leave timed runs for 6 minutes after it.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import run  # noqa: E402  (the harness: its data folder and the shipped pipeline)

# How many of the functions with the most instructions of their own are listed.
TOP = 15


def count(binary, pipeline, work):
    """Runs the shipped first run (`pipeline`) under callgrind; returns the total, the
    instructions by library and those of seedforge's functions."""
    stripped = os.path.join(work, "seedforge")
    # Valgrind cannot read the statically linked toolchain's debug sections: its symbols
    # (the function names) are enough.
    subprocess.run(["objcopy", "--strip-debug", binary, stripped], check=True)
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    profile = os.path.join(work, "callgrind.out")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile}", stripped, "run",
               pipeline, "--out", out, "--quiet", "--force"]
    result = subprocess.run(command, cwd=run.DATA, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"instructions: {' '.join(command)} failed:\n{result.stderr[-2000:]}")
    annotated = subprocess.run(["callgrind_annotate", "--threshold=100", profile], capture_output=True, text=True,
                               check=True).stdout
    names = subprocess.run(["swift", "demangle", "--simplified"], input=annotated, capture_output=True,
                           text=True, check=True).stdout
    shutil.rmtree(out, ignore_errors=True)
    total = None
    # Instructions of each function's own code (not of what it calls), and by library: the
    # work a thread hands to another is counted where it runs, so a stage's inclusive count
    # would depend on which thread took it.
    functions = {}
    libraries = {}
    for line in names.splitlines():
        match = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*)", line)
        if not match:
            continue
        value = int(match.group(1).replace(",", ""))
        where = match.group(2)
        if where.startswith("PROGRAM TOTALS"):
            total = value
            continue
        library = re.search(r"\[([^\]]*)\]\s*$", where)
        library = os.path.basename(library.group(1)) if library else "?"
        library = "seedforge" if library == "seedforge" else re.sub(r"\.so.*", "", library)
        libraries[library] = libraries.get(library, 0) + value
        function = re.sub(r"\s*\[[^\]]*\]\s*$", "", where.split(":", 1)[1] if ":" in where else where)
        if library == "seedforge":
            functions[function] = functions.get(function, 0) + value
    if total is None:
        sys.exit("instructions: callgrind_annotate printed no total")
    return total, libraries, functions


def main():
    for tool in ("valgrind", "callgrind_annotate", "objcopy", "swift"):
        if shutil.which(tool) is None:
            sys.exit(f"instructions: {tool} is not on PATH (make bench-instructions installs valgrind)")
    binaries = sys.argv[1:] or [run.SEEDFORGE]
    if len(binaries) > 2:
        sys.exit(__doc__)
    if not os.path.exists(os.path.join(run.DATA, "cities-pages-200k")):
        sys.exit("instructions: Benchmarks/data/cities-pages-200k is missing: run `make bench` once first")
    counts = []
    pipeline = run.shipped_pipeline()
    with tempfile.TemporaryDirectory(prefix="seedforge-instructions-") as work:
        for binary in binaries:
            print(f"instructions: counting {binary} (about 85 s)", file=sys.stderr, flush=True)
            counts.append(count(os.path.abspath(binary), pipeline, work))
    width = 64
    header = f"{'user-space instructions (millions), shipped first run':<{width}}" + "".join(
        f"{os.path.basename(b)[:14]:>15}" for b in binaries)
    if len(binaries) == 2:
        header += f"{'change':>10}"
    print(header)

    def row(name, values):
        line = f"{name[:width - 1]:<{width}}" + "".join(f"{v / 1e6:>15,.0f}" for v in values)
        if len(values) == 2 and values[0]:
            line += f"{(values[1] - values[0]) / values[0] * 100:>+9.1f}%"
        print(line)

    row("whole run", [c[0] for c in counts])
    libraries = sorted({name for c in counts for name in c[1]}, key=lambda name: -counts[-1][1].get(name, 0))
    for name in libraries[:6]:
        row(f"  in {name}", [c[1].get(name, 0) for c in counts])
    print(f"seedforge's functions with the most instructions of their own (top {TOP}):")
    functions = sorted({name for c in counts for name in c[2]},
                       key=lambda name: -max(c[2].get(name, 0) for c in counts))
    for name in functions[:TOP]:
        row(f"  {name}", [c[2].get(name, 0) for c in counts])


if __name__ == "__main__":
    main()
