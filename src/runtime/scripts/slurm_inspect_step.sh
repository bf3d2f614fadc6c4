# shellcheck shell=sh
# shellcheck disable=SC2015 # `[ -f "$f" ] && grep -q ... || continue` skips the file when either fails
# slurm_inspect_step.sh ROOT NODE ALLOC: the units of node NODE in step mode, as
# slurm_inspect_job.sh does for jobs.
root=$1 node=$2 alloc=$3
. ./_slurm_step_functions.sh
now=$(date +%s) listed=
for f in "$root"/*/*.labels; do
  [ -f "$f" ] && grep -qxF "pdctl.node=$node" "$f" || continue
  [ -n "$listed" ] || { list_steps; listed=1; }
  base=${f%.labels}
  j=$(sed -n 's/^pdctl\.job=//p' "$f")
  step_of "$j"
  srun_of "${f%/*}" "$j"
  state=running scheduler="step $step RUNNING"
  if [ -z "$step" ] && [ -n "$srun" ]; then
    scheduler="step $j of allocation $alloc PENDING (srun launching)"
  elif [ -z "$step" ]; then
    state=exited scheduler="no step $j in allocation $alloc"
  fi
  [ -f "$base.exit" ] && state=exited
. ./_slurm_print_unit.sh
done
