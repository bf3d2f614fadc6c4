# shellcheck shell=sh
# process_log_activity.sh DIR UNIT N: the log file's modification time is its last write: a header
# the parser reads up to the blank line, then the last N lines.
dir=$1 unit=$2 n=$3
f=$dir/$unit.log
printf 'now=%s\nlast_write=%s\n\n' "$(date +%s)" "$(stat -c %Y "$f" 2>/dev/null)"
[ -e "$f" ] || exit 0
tail -n "$n" "$f"
