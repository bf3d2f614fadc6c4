#!/usr/bin/env bash
# cppcheck over src/ with the checked-in suppressions; exits non-zero on any finding.
#   tests/analysis/cppcheck.sh [paths...]      (default: src)
# Checks: warning, performance, portability, style. System headers are not analysed (cppcheck does
# not need them and is much slower with them), the project's own headers are.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- src
exec cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability,style \
  --std=c++20 --language=c++ -j "${PDCTL_ANALYSIS_JOBS:-2}" -I include -I src \
  --inline-suppr --suppressions-list=tests/analysis/cppcheck-suppressions.txt \
  --template='{file}:{line}: {severity} {id}: {message}' "$@"
