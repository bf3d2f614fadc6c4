# shellcheck shell=sh
# slurm_launch_step.sh DIR ALLOC: starts the step's srun (job.sh) detached from pdctl, in the
# group's directory DIR; prints the allocation's id, as sbatch --parsable prints the job's.
cd "$1" || exit 1
setsid sh job.sh > job.out 2>&1 < /dev/null &
echo "$!" > srun.pid
echo "$2"
