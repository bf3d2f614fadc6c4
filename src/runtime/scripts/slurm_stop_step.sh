# shellcheck shell=sh
# shellcheck disable=SC2015 # `[ -f "$f" ] && grep -q ... || continue` skips the file when either fails
# slurm_stop_step.sh ROOT JOB GRACE KILL_WAIT ALLOC
# Stops step JOB of allocation ALLOC with the same flow: the step while squeue lists it, and its srun
# while it runs. The allocation stays: it is the operator's. forget drops srun.pid: its pid could be
# another process's one day.
root=$1 job=$2 grace=$3 kill_wait=$4 alloc=$5
. ./_slurm_step_functions.sh
dir=
for f in "$root"/*/*.labels; do
  [ -f "$f" ] && grep -qxF "pdctl.job=$job" "$f" && dir=${f%/*}
done
held() {
  list_steps
  step_of "$job"
  held=${step:+step $step}
  [ -z "$dir" ] || srun_of "$dir" "$job"
  [ -z "$srun" ] || held="${held:+$held, }srun $srun"
}
terminate() { [ -z "$step" ] || scancel --signal=TERM "$step" 2>/dev/null; }
cancel() {
  [ -z "$step" ] || scancel "$step" || return 1
  [ -z "$srun" ] || kill -TERM "$srun" 2>/dev/null
  return 0
}
forget() { [ -z "$dir" ] || rm -f "$dir/srun.pid"; }
. ./_slurm_stop_flow.sh
