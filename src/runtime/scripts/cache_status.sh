# shellcheck shell=sh
# cache_status.sh DIR...: each kernel cache directory (_cache_prepare.sh) as lines pdctl reads
# (runtime/kernel_cache.hpp):
#   now EPOCH
#   live DIR KEY BYTES MADE_EPOCH LAST_RESULT LAST_EPOCH   (KEY "-" when DIR holds no cache)
#   stale DIR KEY BYTES SET_ASIDE_EPOCH
echo "now $(date +%s)"
for dir in "$@"; do
  if [ -f "$dir/.pdctl-fingerprint" ]; then
    key=$(sed -n 's/^key=//p' "$dir/.pdctl-fingerprint")
    bytes=$(du -sb "$dir" 2>/dev/null | cut -f1)
    made=$(stat -c %Y "$dir/.pdctl-fingerprint" 2>/dev/null)
    last="- 0"
    [ -f "$dir/.pdctl-last-start" ] && last=$(cat "$dir/.pdctl-last-start")
    echo "live $dir ${key:--} ${bytes:-0} ${made:-0} $last"
  else
    echo "live $dir - 0 0 - 0"
  fi
  for stale in "$dir.stale"/*; do
    [ -d "$stale" ] || continue
    echo "stale $dir ${stale##*/} $(du -sb "$stale" 2>/dev/null | cut -f1) $(stat -c %Y "$stale" 2>/dev/null)"
  done
done
