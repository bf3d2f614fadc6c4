# shellcheck shell=sh
# cache_clear.sh WHAT DIR...: removes each kernel cache directory and what was set aside next to it
# (WHAT=all), or only what was set aside (WHAT=stale). Says what it removed, one line per directory:
#   cleared DIR BYTES
what=$1; shift
for dir in "$@"; do
  bytes=0
  if [ "$what" = all ] && [ -d "$dir" ]; then
    bytes=$(du -sb "$dir" 2>/dev/null | cut -f1)
    bytes=${bytes:-0}
    rm -rf "$dir" || exit 1
  fi
  for stale in "$dir.stale"/*; do
    [ -d "$stale" ] || continue
    size=$(du -sb "$stale" 2>/dev/null | cut -f1)
    bytes=$((bytes + ${size:-0}))
    rm -rf "$stale" || exit 1
  done
  echo "cleared $dir $bytes"
done
