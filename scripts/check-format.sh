#!/usr/bin/env bash
# `make format-check`: every Swift file is as `swift format` (configuration: .swift-format,
# 120 columns) writes it. Lists the files that are not and exits 1; `make format` fixes them.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
status=0
while IFS= read -r -d '' file; do
    if ! "$SWIFT" format --configuration .swift-format "$file" | cmp -s - "$file"; then
        echo "not formatted: $file (run make format)"
        status=1
    fi
done < <(find Sources Tests Benchmarks Fuzz -name '*.swift' -not -path '*/Golden/*' -print0; printf 'Package.swift\0')
exit $status
