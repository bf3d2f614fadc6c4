#!/usr/bin/env bash
# Runs the whole test suite N times on one fresh build, with CPU load beside it, and counts failures
# per test: a test that fails once in N loaded runs is a flaky test, and a flaky test is a failing test.
#
#   tests/stress/flake-hunt.sh N [CLONE-DIR]      (root, Debian 12)
#
# Clones the committed HEAD of this repository into CLONE-DIR (default: a new directory under /tmp),
# installs what is missing (.ci/install-deps, stress-ng), builds the CI preset once, then runs
# `ctest --preset ci -jJ` (every label, with CI's J = $PDCTL_TEST_JOBS or 4; not the sanitizer/fuzz pass of .ci/analysis) N
# times while `stress-ng --cpu 2` keeps both cores busy (PDCTL_FLAKE_LOAD overrides the load command;
# PDCTL_FLAKE_LOAD=none runs without). Prints each run's time and failures, then a table of failure
# counts per test; exits 1 if any test failed in any run. Each run's ctest output is kept in
# CLONE-DIR/flake-hunt/run-K.log.
set -euo pipefail

runs=${1:?usage: tests/stress/flake-hunt.sh N [CLONE-DIR]}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "flake-hunt: N must be a positive number, not '$runs'" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
clone=${2:-$(mktemp -d /tmp/pdctl-flake-hunt.XXXXXX)/pdctl}

echo "== flake-hunt: fresh clone of $(git -C "$repo" rev-parse --short HEAD) in $clone"
rm -rf "$clone"
git clone -q "$repo" "$clone"
cd "$clone"
.ci/install-deps
command -v stress-ng >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stress-ng >/dev/null
cmake --preset ci >/dev/null
cmake --build --preset ci >/dev/null
echo "== flake-hunt: built"

load=${PDCTL_FLAKE_LOAD:-stress-ng --cpu 2 --quiet}
load_pid=
stop_load() { [ -n "$load_pid" ] && kill -- "-$load_pid" 2>/dev/null; load_pid=; }
trap stop_load EXIT
if [ "$load" != none ]; then
  setsid $load >/dev/null 2>&1 &
  load_pid=$!
  echo "== flake-hunt: load beside every run: $load; ctest -j${PDCTL_TEST_JOBS:-4}"
fi

out=$clone/flake-hunt
mkdir -p "$out"
: >"$out/failures.txt"
for run in $(seq 1 "$runs"); do
  began=$SECONDS
  status=0
  ctest --preset ci -j"${PDCTL_TEST_JOBS:-4}" >"$out/run-$run.log" 2>&1 || status=$?
  failed=$(grep -cE '^\s+[0-9]+ - .* \((Failed|Timeout|SEGFAULT|Exception|Not Run)\)' "$out/run-$run.log" || true)
  summary=$(grep -E 'tests passed, [0-9]+ tests failed out of' "$out/run-$run.log" || echo "ctest exit $status")
  echo "== flake-hunt: run $run/$runs: $summary ($((SECONDS - began)) s, load average $(cut -d' ' -f1 /proc/loadavg))"
  grep -E '^\s+[0-9]+ - .* \((Failed|Timeout|SEGFAULT|Exception|Not Run)\)' "$out/run-$run.log" |
    sed -E 's/^\s+[0-9]+ - //' | tee -a "$out/failures.txt" | sed 's/^/     /' || true
  [ "$failed" -eq 0 ] && [ "$status" -ne 0 ] && echo "     (ctest exit $status without a failed test: see $out/run-$run.log)" &&
    echo "ctest exit $status in run $run" >>"$out/failures.txt"
done
stop_load

echo "== flake-hunt: failures per test over $runs loaded runs"
if [ -s "$out/failures.txt" ]; then
  sort "$out/failures.txt" | uniq -c | sort -rn
  exit 1
fi
echo "   none: 0 failures in $runs runs"
