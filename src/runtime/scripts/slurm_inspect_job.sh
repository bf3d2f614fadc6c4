# shellcheck shell=sh
# shellcheck disable=SC2015 # `[ -f "$f" ] && grep -q ... || continue` skips the file when either fails
# shellcheck disable=SC1007 # `id=0 st= why=` empties st and why on purpose
# slurm_inspect_job.sh ROOT NODE
# The units of node NODE, from their .labels and the newest job of their job's name (the highest id:
# squeue keeps ended jobs for MinJobAge). One squeue for every job on the node; a failing squeue fails
# the inspect, so no unit looks stopped because slurmctld did not answer. SLURM's final job states as in
# slurm_stop_job.sh.
root=$1 node=$2
now=$(date +%s) names=
for f in "$root"/*/*.labels; do
  [ -f "$f" ] && grep -qxF "pdctl.node=$node" "$f" || continue
  j=$(sed -n 's/^pdctl\.job=//p' "$f")
  case ",$names," in *",$j,"*) ;; *) names=${names:+$names,}$j ;; esac
done
[ -n "$names" ] || exit 0
jobs=$(squeue --noheader --states=all --name="$names" --format='%j|%i|%T|%r') || exit 1
for f in "$root"/*/*.labels; do
  [ -f "$f" ] && grep -qxF "pdctl.node=$node" "$f" || continue
  base=${f%.labels}
  j=$(sed -n 's/^pdctl\.job=//p' "$f")
  id=0 st= why=
  while IFS='|' read -r name jid jst jwhy; do
    [ "$name" = "$j" ] && [ "$jid" -gt "$id" ] 2>/dev/null && id=$jid st=$jst why=$jwhy
  done <<EOF
$jobs
EOF
  state=exited
  [ -f "$base.exit" ] || case $st in ''|COMPLETED|CANCELLED|FAILED|TIMEOUT|NODE_FAIL|PREEMPTED|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|REVOKED|SPECIAL_EXIT) ;; *) state=running ;; esac
  scheduler="job $id $st ($why)"
  [ "$id" = 0 ] && scheduler="no job $j in squeue"
. ./_slurm_print_unit.sh
done
