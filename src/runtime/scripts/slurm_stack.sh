# shellcheck shell=sh
# slurm_stack.sh ROOT UNIT PY_SPY..., on the rank's node, inside one of the deployment's SLURM jobs
# (srun --overlap: backend/srun_executor.hpp). The rank's pid is in its group's directory under ROOT,
# on the shared file system: the program itself (slurm_rank.sh's child execs the unit's script, which
# execs the program). A rank that recorded its exit has none. Exit 3: not running; 127: no py-spy.
root=$1 unit=$2; shift 2
base=
for f in "$root"/*/"$unit".pid; do [ -f "$f" ] && base=${f%.pid}; done
[ -n "$base" ] || { echo "pdctl: $unit is not running (no pid file under $root)" >&2; exit 3; }
pid=$(cat "$base.pid")
if [ -f "$base.exit" ] || ! kill -0 "$pid" 2>/dev/null; then
  echo "pdctl: $unit is not running on $(hostname) (pid $pid ended)" >&2; exit 3
fi
command -v "$1" >/dev/null 2>&1 || { echo "pdctl: $1 is not installed on this node" >&2; exit 127; }
exec "$@" dump --pid "$pid" --subprocesses
