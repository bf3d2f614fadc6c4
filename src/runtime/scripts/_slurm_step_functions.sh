# shellcheck shell=sh
# Piece, step mode (`nodes: from-allocation`): the groups are steps of allocation "$alloc", found
# by step name in `squeue --steps` (which lists running steps only). Before SLURM lists a step its srun
# is already running here (the group's srun.pid): that is a step still launching. A zombie is no srun
# (this machine's PID 1 may not reap the detached ones), nor is a process that only reuses the pid: it
# must be the group's srun, or job.sh just before it execs srun.
#   alive PID JOB   that process is the live srun (or job.sh) of group JOB
#   list_steps      $steps: "ID|NAME" lines of every running step; a failing squeue fails the caller
#   step_of NAME    $step: the running step of allocation $alloc named NAME, if any
#   srun_of DIR JOB $srun: the live srun of group JOB, whose files are in DIR, if any
alive() {
  s=$(ps -o stat=,args= -p "$1" 2>/dev/null) || return 1
  case $s in Z*) return 1 ;; *" --job-name=$2 "* | *" sh job.sh") return 0 ;; esac
  return 1
}
list_steps() { steps=$(squeue --noheader --steps --format='%i|%j' 2>&1) || { echo "pdctl: squeue failed: $steps" >&2; exit 1; }; }
step_of() {
  step=
  while IFS='|' read -r sid sname; do
    case $sid in "$alloc".*) [ "$sname" = "$1" ] && step=$sid ;; esac
  done <<EOF
$steps
EOF
}
srun_of() { srun=$(cat "$1/srun.pid" 2>/dev/null) && alive "$srun" "$2" || srun=; }
