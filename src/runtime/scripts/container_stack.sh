# shellcheck shell=sh
# container_stack.sh PY_SPY..., run inside the container (CLI exec UNIT sh -c ...): its processes
# are the unit's, pid 1 is the init (--init).
. ./_program_pid.sh
pid=$(program_pid)
[ -n "$pid" ] || { echo "pdctl: no program runs in the container" >&2; exit 3; }
command -v "$1" >/dev/null 2>&1 || { echo "pdctl: $1 is not installed in the container's image" >&2; exit 127; }
exec "$@" dump --pid "$pid" --subprocesses
