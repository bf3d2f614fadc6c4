# shellcheck shell=sh
# shellcheck disable=SC2163 # export "$kv" exports the KEY=VALUE line read from the env file
# shellcheck disable=SC2016 # the inner sh -c script is single-quoted on purpose: its $0 and $@ are its own
# process_start.sh DIR UNIT LABELS CACHE PROGRAM... < ENV_FILE
# The unit records itself before its program runs: the supervising sh (leader of the unit's new process
# group, so its pid is the group id) writes the pid file and then moves the state file into place (the
# move is the atomic step: status and stop list units by their state file, so the pid file is whole by
# the time anything reads it), then runs the program. Whenever pdctl dies (before this script, during
# it, after it) a program that runs has a record that status and stop find. The script returns once the
# record exists. Exit 17: already running. A log left by an earlier run that was never stopped (it
# crashed) is kept before it is overwritten. CACHE: the unit's kernel cache, made ready before the
# program starts (_cache_prepare.sh).
. ./_alive.sh
. ./_keep_log.sh
. ./_env_complete.sh
. ./_cache_prepare.sh
dir=$1 unit=$2 labels=$3 cache=$4; shift 4
. ./_receive_env.sh
pid=
read -r pid 2>/dev/null < "$dir/$unit.pid"
if [ -n "$pid" ] && group_alive "$pid"; then
  echo "pdctl: $unit is already running (pid $pid)" >&2; exit 17
fi
# A stop removed these; a unit that ended by itself left them (rm only then: a process per start).
for f in "$dir/$unit.exit" "$dir/$unit.pid" "$dir/$unit.state"; do
  if [ -e "$f" ]; then rm -f "$dir/$unit.exit" "$dir/$unit.pid" "$dir/$unit.state"; break; fi
done
if [ -s "$dir/$unit.log" ]; then keep_log "$dir" "$unit" "$dir/$unit.log"; fi
cache_prepare "$cache" "" || { echo "pdctl: $unit: could not prepare its cache directory" >&2; exit 1; }
printf '%s\nstarted=%s\n' "$labels" "$(date +%s)" > "$dir/$unit.state.new"
# The supervising sh says "recorded" on fd 3 once the record is in place and closes it before the
# program runs, so the command substitution returns right then, or with nothing as soon as the sh ends
# without a record: no polling (a 50 ms sleep loop cost every launch at least 50 ms). Only fd 3 reaches
# the substitution's pipe; the unit's output goes to its log. SIGPIPE is ignored for that one word, so a
# start script killed meanwhile never takes the unit down with it.
recorded=$(
  (
    while IFS= read -r kv; do case $kv in '#'*) ;; *) export "$kv";; esac; done < "$dir/$unit.env"
    exec setsid sh -c 'echo $$ > "$0.pid" && mv "$0.state.new" "$0.state" || exit 1; trap "" PIPE; echo recorded >&3; trap - PIPE; exec 3>&-; "$@"; echo $? > "$0.exit"' "$dir/$unit" "$@"
  ) 3>&1 > "$dir/$unit.log" 2>&1 < /dev/null &
)
if [ "$recorded" != recorded ] || [ ! -f "$dir/$unit.state" ]; then
  echo "pdctl: $unit did not start (no pid recorded): $(tail -n 3 "$dir/$unit.log" 2>/dev/null)" >&2
  exit 1
fi
read -r pid 2>/dev/null < "$dir/$unit.pid"
echo "started $unit pid $pid"
