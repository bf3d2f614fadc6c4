#!/usr/bin/env bash
# clang-tidy (checks in .clang-tidy) over all of src/ but sim/ (pdsim, the simulator, is test tooling);
# exits non-zero on any finding (WarningsAsErrors: '*').
#   tests/analysis/clang-tidy.sh
#
# It checks the unity batches of the layer libraries and pdctl (preset tidy: configured here, nothing is built),
# not each source file: the checks' time goes mostly into walking the AST of the header-only libraries
# (nlohmann/json, fmt, spdlog, CLI11), which a batch (up to 40 sources: every layer library is one) parses once.
# All of src/ takes about 1.5 min on 2 cores instead of about 15. Findings are reported at the source
# file and line as usual (HeaderFilterRegex covers src/). Two consequences, both accepted:
#   - bugprone-suspicious-include is off here: a batch #includes .cpp files by design.
#   - the batch file lives in the build tree, so .clang-tidy is passed explicitly.
# One file on its own, with a per-file compile database (e.g. the dev preset's build/):
#   clang-tidy-14 -p build src/cli/app.cpp
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build-tidy
cmake --preset tidy --log-level=WARNING >/dev/null
batches=$(find "$build/src/CMakeFiles" -path '*/Unity/*' ! -path '*/pdsim.dir/*' -name 'unity_*.cxx' | sort)
# The embedded-profile source is generated data, and every other source of src/ must be in a batch:
# a source left out of every batch would go unchecked without a word.
sources=$(find src -name '*.cpp' ! -path 'src/sim/*' | wc -l)
batched=$(cat $batches | grep -c '^#include ".*/src/.*\.cpp"')
if [ -z "$batches" ] || [ "$batched" -ne "$sources" ]; then
  echo "clang-tidy: $batched of $sources sources of src/ are in a unity batch of $build" >&2
  exit 2
fi
echo "clang-tidy: $sources sources in $(echo "$batches" | wc -l) batches"
jobs=${PDCTL_ANALYSIS_JOBS:-2}
status=0
# A batch that passed is not checked again while what clang-tidy would read is the same: the key is
# the tool's version, .clang-tidy, and the batch preprocessed with its comments (NOLINT lives in
# them) and line markers (findings are per line), with the checkout's path taken out so a clone
# elsewhere hits too. Preprocessing costs about a tenth of the check. Only passes are kept.
cache=${PDCTL_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pdctl/clang-tidy}
mkdir -p "$cache"
preprocess_command() {  # the batch's compile command from the database, as -E -C
  python3 - "$build/compile_commands.json" "$1" <<'PY'
import json, shlex, sys
sys.dont_write_bytecode = True  # nothing written into the checkout
sys.path.insert(0, "tests/analysis")
from standalone import without_outputs
database, batch = sys.argv[1], sys.argv[2]
for entry in json.load(open(database)):
    if entry["file"].endswith(batch):
        arguments = entry.get("arguments") or shlex.split(entry["command"])
        print(shlex.join(without_outputs(arguments) + ["-E", "-C"]))
        break
PY
}
tidy_key() {
  local command
  command=$(preprocess_command "$1")
  [ -n "$command" ] || return 1
  { clang-tidy-14 --version; cat .clang-tidy; echo "$command"; (cd "$build" && eval "$command"); } |
    sed "s|$(pwd)|.|g" | sha256sum | cut -d' ' -f1
}
tidy_batch() {  # output of one batch as one block, so parallel batches do not interleave
  local out key
  key=$(tidy_key "$1") || key=
  [ -n "$key" ] && [ -e "$cache/$key" ] && return 0
  if ! out=$(clang-tidy-14 --quiet -p "$build" --config-file="$(pwd)/.clang-tidy" \
      --checks=-bugprone-suspicious-include "$1" 2>&1); then
    printf '%s\n' "$out" | grep -v ' warnings generated\.$' >&2
    return 1
  fi
  [ -z "$key" ] || touch "$cache/$key"
}
for batch in $batches; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || status=1; done
  tidy_batch "$batch" &
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || status=1; done
wait || status=1
[ "$status" -eq 0 ] && echo "clang-tidy: no findings"
exit "$status"
