# shellcheck shell=sh
# slurm_log_activity.sh ROOT UNIT N: the header log_activity parses (now, last write), then the
# last N lines of the rank's log.
root=$1 unit=$2 n=$3 log=
for f in "$root"/*/"$unit".log; do [ -f "$f" ] && log=$f; done
printf 'now=%s\nlast_write=%s\n\n' "$(date +%s)" "$(stat -c %Y "$log" 2>/dev/null)"
[ -n "$log" ] || exit 0
tail -n "$n" "$log"
