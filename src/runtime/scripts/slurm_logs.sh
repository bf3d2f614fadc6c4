# shellcheck shell=sh
# shellcheck disable=SC2093 # exec tails the first log found; what follows runs only when there is none
# slurm_logs.sh ROOT UNIT N: a rank's log under any group's directory (unit names are unique in a
# cluster). Without a log the rank never ran: what SLURM said instead (srun's errors, e.g. a GRES the
# allocation lacks) is in its group's job.out.
root=$1 unit=$2 n=$3
for f in "$root"/*/"$unit".log; do [ -f "$f" ] && exec tail -n "$n" "$f"; done
for f in "$root"/*/"$unit".sh; do
  out=${f%/*}/job.out
  [ -s "$out" ] || continue
  echo "pdctl: $unit has no log: it never ran; SLURM's output for its group ($out):"
  exec tail -n "$n" "$out"
done
echo "pdctl: no log of $unit under $root (its job has not started it yet)" >&2
exit 1
