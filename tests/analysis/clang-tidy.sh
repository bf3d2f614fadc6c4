#!/usr/bin/env bash
# clang-tidy (checks in .clang-tidy) over src/, from a build dir's compile_commands.json; exits non-zero
# on any finding (WarningsAsErrors: '*').
#   tests/analysis/clang-tidy.sh [build-dir] [dir-regex]
# Defaults: build dir `build` (configure is enough: cmake --preset ci), and every directory of src/ but
# sim/ (pdsim, the simulator, is test tooling). CI passes a narrower regex to stay in its time budget
# (.ci/analysis), the directories that run clean; cli, doctor, exec, lint and report still have findings.
# The embedded-profile source is generated and not checked.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
dirs=${2:-'src/(cli|config|doctor|engine|exec|health|lint|plan|push|report|runtime|util)/'}
[ -f "$build/compile_commands.json" ] || { echo "clang-tidy: no $build/compile_commands.json (cmake --preset ci)" >&2; exit 2; }
# run-clang-tidy takes a regex of files to check; anchor it at this source tree.
exec run-clang-tidy-14 -quiet -p "$build" -j "${PDCTL_ANALYSIS_JOBS:-2}" -clang-tidy-binary clang-tidy-14 \
  "$(pwd)/${dirs}.*\\.cpp\$"
