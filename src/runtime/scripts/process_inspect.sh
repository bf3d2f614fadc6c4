# shellcheck shell=sh
# shellcheck disable=SC2086 # `set -- ${line##*) }` splits the stat fields on purpose
# process_inspect.sh DIR: one key=value block per unit recorded in DIR (parse_state_blocks). Builtins
# only per unit, and one `stat` for every unit that exited: status runs this on every node at once, and
# on nodes that share cores (or a busy node) each fork and exec adds up.
# A running unit's age comes from the kernel's boot clock, not the wall clock (`date` was a process
# on every run): /proc/uptime against its leader's start time, /proc/PID/stat field 22 in clock ticks
# since boot (USER_HZ, 100 on Linux). The leader started with the unit, and is still its group's leader
# while its stat says so, even as a zombie (its pid cannot be reused then). Only a unit whose leader is
# gone while its group lives reads the wall clock, which its start was recorded by.
. ./_alive.sh
dir=$1
up_ticks='' now=''
unit_age() {  # unit_age PGID: sets $age, seconds since the group's leader started ('' if it is gone)
  age=''
  IFS= read -r line 2>/dev/null < "/proc/$1/stat" || return 0
  leader=$1
  set -- ${line##*) }
  [ $# -ge 20 ] && [ "$3" = "$leader" ] || return 0
  shift 19
  if [ -z "$up_ticks" ]; then
    IFS=' .' read -r up_s up_cs _ < /proc/uptime || return 0
    up_ticks=$((up_s * 100 + ${up_cs#0}))
  fi
  [ "$1" -le "$up_ticks" ] 2>/dev/null && age=$(((up_ticks - $1) / 100))
}
# The exit files' times, all in one `stat` (a process per exited unit before: a stopped cluster's
# status paid one per rank), as "\nSECONDS PATH" lines looked up by path below.
exits=''
for f in "$dir"/*.exit; do
  [ -e "$f" ] && exits="
$(stat -c '%Y %n' "$dir"/*.exit 2>/dev/null)
"
  break
done
for f in "$dir"/*.state; do
  [ -e "$f" ] || continue
  unit=${f##*/}; unit=${unit%.state}
  pid='' code='' finished='' age=''
  read -r pid 2>/dev/null < "$dir/$unit.pid"
  state=exited
  if [ -n "$pid" ] && group_alive "$pid"; then
    state=running
    unit_age "$pid"
    if [ -z "$age" ] && [ -z "$now" ]; then now=$(date +%s); fi
  fi
  if [ -e "$dir/$unit.exit" ]; then
    read -r code 2>/dev/null < "$dir/$unit.exit"
    case $exits in
      *" $dir/$unit.exit
"*)
        finished=${exits%%" $dir/$unit.exit
"*}
        finished=${finished##*
} ;;
    esac
  fi
  printf 'unit=%s\nstate=%s\npid=%s\nexit_code=%s\nage=%s\nnow=%s\nfinished=%s\n' "$unit" "$state" "$pid" "$code" "$age" "$now" "$finished"
  while IFS= read -r line || [ -n "$line" ]; do printf '%s\n' "$line"; done < "$f"
  echo
done
