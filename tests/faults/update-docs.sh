#!/usr/bin/env bash
# Runs the fault matrix (local cases; with root also the network cases on the SSH test cluster) and
# replaces the matrix in docs/reliability.md with the rows of this run.
#   tests/faults/update-docs.sh [build-dir]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
ctest --test-dir "$build" -L faults -j2 --output-on-failure || true  # the report test says what failed
matrix="$build/faults/matrix.md"
[ -s "$matrix" ] || { echo "no matrix at $matrix" >&2; exit 1; }
doc=docs/reliability.md
python3 - "$doc" "$matrix" <<'PY'
import sys
doc, matrix = sys.argv[1], sys.argv[2]
text = open(doc).read()
begin, end = "<!-- fault-matrix:begin -->", "<!-- fault-matrix:end -->"
if begin not in text or end not in text:
    sys.exit(f"{doc} has no {begin} ... {end} section")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(doc, "w").write(head + begin + "\n" + open(matrix).read() + end + tail)
PY
echo "updated $doc from $matrix"
