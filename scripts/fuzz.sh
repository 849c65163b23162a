#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/, with the address sanitizer) and runs each for a set
# time: `scripts/fuzz.sh [SECONDS] [json csv html pipeline]` (default 600 seconds, every
# target). Seed corpora are copied from Fixtures/ and pipelines/ into
# .build-fuzz/corpus/<target>/ (git-ignored), where the inputs a run finds interesting stay
# for the next run. A crash, a sanitizer report, a timeout or a memory blow-up leaves its input
# in .build-fuzz/crashes/<target>/ and makes the script fail; replay it with
# `.build-fuzz/debug/seedforge-fuzz-<target> .build-fuzz/crashes/<target>/crash-...`.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SECONDS_EACH=${1:-600}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(json csv html pipeline)
SCRATCH=.build-fuzz

seeds() {
    case "$1" in
        json) find Fixtures -name '*.json' ;;
        csv) find Fixtures \( -name '*.csv' -o -name '*.tsv' -o -name '*.txt' \) ;;
        html) find Fixtures -name '*.html' ;;
        pipeline) find pipelines Fixtures -name '*.yml' ;;
        *)
            echo "unknown fuzz target '$1' (json, csv, html or pipeline)" >&2
            exit 2
            ;;
    esac
}

for target in "${TARGETS[@]}"; do
    seeds "$target" > /dev/null
    mkdir -p "$SCRATCH"
    if ! $SWIFT build --product "seedforge-fuzz-$target" --scratch-path "$SCRATCH" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING > "$SCRATCH/build.log" 2>&1; then
        grep -v "Cannot export local symbol" "$SCRATCH/build.log" | grep -E "error|warning: unre" >&2 || true
        echo "fuzz: building seedforge-fuzz-$target failed (log: $SCRATCH/build.log)" >&2
        exit 1
    fi
done

failed=()
for target in "${TARGETS[@]}"; do
    corpus="$SCRATCH/corpus/$target"
    crashes="$SCRATCH/crashes/$target"
    mkdir -p "$corpus" "$crashes"
    # Seeds are named by their path, so a changed fixture replaces its old copy.
    seeds "$target" | while read -r file; do cp "$file" "$corpus/seed-${file//\//_}"; done
    echo "fuzz: $target for ${SECONDS_EACH}s (corpus $corpus, crashes $crashes)"
    # The Swift runtime's backtracer would hold a crashing process; libFuzzer reports instead.
    if ! SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 nice "$SCRATCH/debug/seedforge-fuzz-$target" \
        -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$crashes/" -print_final_stats=1 "$corpus" > "$SCRATCH/$target.log" 2>&1; then
        tail -40 "$SCRATCH/$target.log" >&2
        failed+=("$target")
    else
        grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)" "$SCRATCH/$target.log" || true
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: failing inputs found by: ${failed[*]} (see $SCRATCH/crashes/)" >&2
    exit 1
fi
echo "fuzz: ${TARGETS[*]} ran ${SECONDS_EACH}s each without a failure"
