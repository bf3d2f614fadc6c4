#!/usr/bin/env bash
# Runs every libFuzzer target of the ASan build for a bounded time and prints a summary.
#
#   tests/fuzz/run.sh [seconds-per-target]        (default 30; CI runs 20: .ci/analysis)
#
# Env: PDCTL_FUZZ_BUILD (default build-asan), PDCTL_FUZZ_TARGETS (space-separated subset),
#      PDCTL_FUZZ_JSON (also write the summary there as JSON).
# Each target starts from its checked-in seeds (tests/fuzz/corpus/<name>/, never modified) plus a
# scratch corpus under the build dir, so new coverage from one run seeds the next locally without
# churning the repository. A crash leaves its input in <build>/fuzz/artifacts/<name>/ and makes the
# script exit 1 after all targets have run.
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
build=${PDCTL_FUZZ_BUILD:-build-asan}
targets=${PDCTL_FUZZ_TARGETS:-$(cd tests/fuzz && ls ./*_fuzz.cpp | sed 's|^\./||; s|_fuzz\.cpp$||')}
work="$build/fuzz"
mkdir -p "$work"

# Leaks are real bugs, but libssh2/yaml-cpp globals freed at exit are not ours: detect_leaks stays on,
# with the process exiting normally after -max_total_time so LeakSanitizer reports at the end.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
rows=()
printf '%-14s %12s %8s %8s\n' target execs seconds crashes
for name in $targets; do
  binary="$build/tests/fuzz/${name}_fuzz"
  if [ ! -x "$binary" ]; then
    echo "fuzz: $binary is missing: cmake --preset asan && cmake --build --preset asan" >&2
    exit 2
  fi
  scratch="$work/corpus/$name" artifacts="$work/artifacts/$name"
  mkdir -p "$scratch" "$artifacts"
  log="$work/$name.log"
  marker="$work/$name.started"
  touch "$marker"  # crashes of this run are the artifacts newer than this
  # Log lines can be long (a 30 KB one once overflowed the regex matcher's stack), other inputs are
  # small files: a larger max_len only slows those down.
  max_len=16384
  [ "$name" = log_phases ] && max_len=65536
  began=$(date +%s)
  "$binary" "$scratch" "tests/fuzz/corpus/$name" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
    -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
  rc=$?
  elapsed=$(( $(date +%s) - began ))
  # libFuzzer's final stats: "stat::number_of_executed_units: N".
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  crashes=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) \
    -newer "$marker" 2>/dev/null | wc -l)
  if [ "$rc" -ne 0 ]; then
    status=1
    [ "$crashes" -eq 0 ] && crashes=1
    echo "fuzz: $name failed (exit $rc); last lines of $log:" >&2
    grep -E 'ERROR|SUMMARY|#[0-9]+ 0x|Test unit written' "$log" | head -30 >&2
  fi
  printf '%-14s %12s %8s %8s\n' "$name" "${execs:-?}" "$elapsed" "$crashes"
  rows+=("{\"target\":\"$name\",\"execs\":${execs:-0},\"seconds\":$elapsed,\"crashes\":$crashes}")
done

if [ -n "${PDCTL_FUZZ_JSON:-}" ]; then
  (IFS=,; printf '{"seconds_per_target":%s,"targets":[%s]}\n' "$seconds" "${rows[*]}") >"$PDCTL_FUZZ_JSON"
fi
exit "$status"
