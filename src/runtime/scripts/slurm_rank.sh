# shellcheck shell=sh
# shellcheck disable=SC2163 # export "$kv" exports the KEY=VALUE line read from the env file
# slurm_rank.sh DIR JOB NODE...: one SLURM task per node. Its rank is its node's place among the
# job's nodes. The env file must be complete (env_complete). The task records the program's pid and
# start, then waits for it; a SIGTERM (stop's scancel --signal=TERM) is passed on; `wait` returns early
# when the trap runs, so it waits again until the program itself has ended. The exit code is kept beside
# the log, dated by the file's time, and the task exits with it, so srun names the failed rank and the
# cause is the rank that recorded the earliest exit (a rank SLURM then kills with SIGKILL records none).
. ./_env_complete.sh
dir=$1 job=$2; shift 2
rank=-1 i=0
for node in "$@"; do [ "$node" = "$SLURMD_NODENAME" ] && rank=$i; i=$((i + 1)); done
[ "$rank" -ge 0 ] || { echo "pdctl: node $SLURMD_NODENAME is none of the job's ($*)" >&2; exit 96; }
unit=$job-$rank
env_complete "$dir/$unit.env" "$unit" || exit 1
rm -f "$dir/$unit.exit"
(
  while IFS= read -r kv; do case $kv in '#'*) ;; *) export "$kv";; esac; done < "$dir/$unit.env"
  exec sh "$dir/$unit.sh"
) > "$dir/$unit.log" 2>&1 < /dev/null &
child=$!
echo "$child" > "$dir/$unit.pid"
date +%s > "$dir/$unit.started"
trap 'kill -TERM "$child" 2>/dev/null' TERM INT
while :; do wait "$child"; code=$?; kill -0 "$child" 2>/dev/null || break; done
echo "$code" > "$dir/$unit.exit"
exit "$code"
