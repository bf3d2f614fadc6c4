# shellcheck shell=sh
# process_stop.sh DIR UNIT GRACE KILL_WAIT
# SIGTERM to the unit's process group, SIGKILL once the grace has passed, then a bounded wait for the
# kernel to finish the kill (a process in uninterruptible sleep, a GPU driver tearing down a context,
# dies only when it leaves it). Anything still alive after that is named on stderr with exit 70, and the
# record stays, so status keeps showing the unit and a later stop can try again. dash's kill takes no
# `--`; a negative pid signals the whole process group. The unit's log moves to DIR/previous/ (keep_log).
. ./_alive.sh
. ./_keep_log.sh
dir=$1 unit=$2 grace=$3 kill_wait=$4
pid=
read -r pid 2>/dev/null < "$dir/$unit.pid"
# gone_within PGID SECONDS: waits (0.1 s steps) until the group has no live process; fails if it still
# has one after SECONDS. Each look may be a scan of /proc (the group's leader, its sh, dies first), so a
# group that is gone is looked at once, not again after the wait.
gone_within() {
  i=0
  while group_alive "$1"; do
    [ "$i" -lt "$(($2 * 10))" ] || return 1
    sleep 0.1
    i=$((i + 1))
  done
}
if [ -n "$pid" ] && group_alive "$pid"; then
  kill -TERM "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  if ! gone_within "$pid" "$grace"; then
    kill -KILL "-$pid" 2>/dev/null
    if ! gone_within "$pid" "$kill_wait"; then
      echo "pdctl: still running after SIGTERM, ${grace}s, SIGKILL and ${kill_wait}s more: $(group_members "$pid")" >&2
      exit 70
    fi
  fi
  echo "stopped $unit (pid $pid)"
else
  echo "$unit was not running"
fi
if [ -f "$dir/$unit.log" ]; then keep_log "$dir" "$unit" "$dir/$unit.log"; fi
rm -f "$dir/$unit.log" "$dir/$unit.pid" "$dir/$unit.state" "$dir/$unit.state.new" "$dir/$unit.env" "$dir/$unit.exit"
