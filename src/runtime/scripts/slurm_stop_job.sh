# shellcheck shell=sh
# shellcheck disable=SC2015 # `[ -f "$f" ] && grep -q ... || continue` skips the file when either fails
# slurm_stop_job.sh ROOT JOB GRACE KILL_WAIT
# Stops job JOB: SIGTERM to its steps' processes (the ranks; not --full: the batch script's srun would
# take SIGTERM as "kill the step" and SIGKILL the ranks at once), then the stop flow. A job holds nodes in
# every state but the final ones; a pending job takes no signal: the cancel ends it. The final states
# are also in slurm_inspect_job.sh (a unit test holds the two lists equal): PENDING and COMPLETING are not
# final, slurmstepd is still on the node.
root=$1 job=$2 grace=$3 kill_wait=$4
held() {
  out=$(squeue --noheader --states=all --name="$job" --format='%i %T' 2>&1) || { echo "pdctl: squeue failed: $out" >&2; exit 1; }
  held=
  while read -r id st; do case $st in ''|COMPLETED|CANCELLED|FAILED|TIMEOUT|NODE_FAIL|PREEMPTED|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|REVOKED|SPECIAL_EXIT) ;; *) held="${held:+$held, }job $id $st" ;; esac; done <<EOF
$out
EOF
}
terminate() { scancel --signal=TERM --name="$job" 2>/dev/null; }
cancel() { scancel --name="$job"; }
forget() { :; }
. ./_slurm_stop_flow.sh
