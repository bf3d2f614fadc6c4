# shellcheck shell=sh
# container_stop.sh DIR UNIT CLI GRACE
# A container that cannot be removed (the engine refuses, or it stays in "removing" because a process in
# it does not die) fails the stop with exit 70 and the engine's words: it is still there, and status
# must keep showing it. Its log is kept in DIR/previous/ before the container (and its log) is removed.
. ./_keep_log.sh
dir=$1 unit=$2 cli=$3 grace=$4
if "$cli" container inspect "$unit" >/dev/null 2>&1; then
  "$cli" stop -t "$grace" "$unit" >/dev/null 2>&1
  "$cli" logs --tail 200000 "$unit" 2>&1 | keep_log "$dir" "$unit"
  if ! err=$("$cli" rm -f "$unit" 2>&1 >/dev/null); then
    echo "pdctl: $cli rm -f failed after $cli stop -t $grace: $err" >&2; exit 70
  fi
  if "$cli" container inspect "$unit" >/dev/null 2>&1; then
    echo "pdctl: the container still exists after $cli stop and rm -f (state $("$cli" container inspect --format '{{.State.Status}}' "$unit"))" >&2; exit 70
  fi
  echo "stopped $unit"
else
  echo "$unit was not running"
fi
rm -f "$dir/$unit.env"
