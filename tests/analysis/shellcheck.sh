#!/usr/bin/env bash
# Runs shellcheck over every script pdctl runs on a node, as it is sent (and over the bash completion
# script pdctl prints): the whole texts the build writes to
# BUILD/generated/scripts/LAYER/sh/ from src/LAYER/scripts/*.sh (src/embed_scripts.cmake), pieces read
# in. Any finding fails; a finding that is intended is disabled in the script's header with the reason
# beside it (`# shellcheck disable=SC2086 # ...`).
#   tests/analysis/shellcheck.sh BUILD
set -euo pipefail
build=${1:?usage: tests/analysis/shellcheck.sh BUILD}
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v shellcheck >/dev/null || { echo "shellcheck: not installed (apt-get install shellcheck)" >&2; exit 2; }
mapfile -t scripts < <(find "$build/generated/scripts" -path '*/sh/*.sh' | sort)
# Every script of src/ that is not a piece must be there: one left out would go unchecked.
expected=$(find "$root/src" -path '*/scripts/*.sh' ! -name '_*' | wc -l)
if [ "${#scripts[@]}" -ne "$expected" ]; then
  echo "shellcheck: ${#scripts[@]} scripts in $build/generated/scripts, $expected in src/*/scripts (configure again?)" >&2
  exit 2
fi
shellcheck --format=gcc "${scripts[@]}"
# The bash completion script, as `pdctl completion bash` prints it (and the .deb installs it): it runs
# in the user's own shell, where a quoting slip would act on what they typed.
"$build/pdctl" completion bash >"$build/generated/pdctl.bash-completion"
shellcheck --format=gcc --shell=bash "$build/generated/pdctl.bash-completion"
echo "shellcheck: ${#scripts[@]} node scripts and the bash completion script, no finding"
