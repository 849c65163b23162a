#!/bin/sh
# Rewrites README.md's "Kinds reference" section (from "## Kinds reference" to the next "## "
# heading) with what `seedforge kinds --markdown` prints: the section is made from each
# kind's spec, never edited by hand. Usage: scripts/generate-kinds-reference.sh [SEEDFORGE]
set -eu
cd "$(dirname "$0")/.."
bin=${1:-.build/debug/seedforge}
generated=$(mktemp)
updated=$(mktemp)
trap 'rm -f "$generated" "$updated"' EXIT
"$bin" kinds --markdown >"$generated"
awk -v generated="$generated" '
    /^## Kinds reference$/ { while ((getline line < generated) > 0) print line; print ""; skipping = 1; next }
    skipping && /^## / { skipping = 0 }
    !skipping { print }
' README.md >"$updated"
grep -q '^## Kinds reference$' "$updated" || { echo "README.md has no '## Kinds reference' section" >&2; exit 1; }
cat "$updated" >README.md
