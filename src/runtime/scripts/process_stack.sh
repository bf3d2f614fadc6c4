# shellcheck shell=sh
# process_stack.sh DIR UNIT PY_SPY...: py-spy attaches to the program, not to the supervising
# shell that leads the unit's group. Exit 3: not running; 127: no py-spy on the node.
. ./_program_pid.sh
dir=$1 unit=$2; shift 2
pgid=$(cat "$dir/$unit.pid" 2>/dev/null)
[ -n "$pgid" ] || { echo "pdctl: $unit is not running on this node (no pid file)" >&2; exit 3; }
pid=$(program_pid "$pgid")
[ -n "$pid" ] || { echo "pdctl: no program runs in $unit (process group $pgid)" >&2; exit 3; }
command -v "$1" >/dev/null 2>&1 || { echo "pdctl: $1 is not installed on this node" >&2; exit 127; }
exec "$@" dump --pid "$pid" --subprocesses
