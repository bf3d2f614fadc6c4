# shellcheck shell=sh
# prewarm.sh READERS DIR...: reads every file below each model directory (links followed, as a Hugging
# Face cache links its snapshots to blobs) into the page cache, READERS files at a time, then says how
# much of it is resident (fincore, util-linux) and how much memory the node has, for pdctl
# (runtime/page_cache.hpp):
#   mem TOTAL_BYTES AVAILABLE_BYTES        (from /proc/meminfo, before the reading)
#   dir DIR present|missing FILES BYTES RESIDENT_BYTES SECONDS   (RESIDENT "-": no fincore)
readers=$1; shift
total=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)
available=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
echo "mem $((${total:-0} * 1024)) $((${available:-0} * 1024))"
for dir in "$@"; do
  if [ ! -d "$dir" ]; then
    echo "dir $dir missing 0 0 0 0"
    continue
  fi
  began=$(date +%s.%N)
  # The same bound as the doctor's listing: a hung mount must not hold the start.
  find -L "$dir" -type f -print0 2>/dev/null | xargs -0 -r -n 8 -P "$readers" cat > /dev/null 2>&1
  ended=$(date +%s.%N)
  files=$(find -L "$dir" -type f 2>/dev/null | wc -l)
  bytes=$(find -L "$dir" -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { printf "%d", s }')
  if command -v fincore >/dev/null 2>&1; then
    resident=$(find -L "$dir" -type f -print0 2>/dev/null | xargs -0 -r fincore --bytes --noheadings --raw --output RES 2>/dev/null |
      awk '{ s += $1 } END { printf "%d", s }')
  else
    resident=-
  fi
  echo "dir $dir present $files ${bytes:-0} ${resident:-0} $(echo "$began $ended" | awk '{ printf "%.3f", $2 - $1 }')"
done
