# shellcheck shell=sh
# Piece: the stop of a group "$job" once its script has defined `held` (sets $held: what SLURM
# still holds of it, empty when nothing), `terminate` (SIGTERM to its ranks), `cancel` (SLURM's own end)
# and `forget` (files only a live group needs): the terminate, up to the grace for it to go, the cancel,
# up to $kill_wait seconds more; exit 70 naming what SLURM still holds. Then the ranks' files go (their
# env files hold secrets), all but the logs and job.out.
wait_gone() { i=0; while held; [ -n "$held" ] && [ "$i" -lt "$(($1 * 5))" ]; do sleep 0.2; i=$((i + 1)); done; }
held
if [ -z "$held" ]; then
  said="$job was not running"
else
  said="stopped $job ($held)"
  terminate
  wait_gone "$grace"
  if [ -n "$held" ]; then cancel || exit 1; wait_gone "$kill_wait"; fi
  if [ -n "$held" ]; then
    echo "pdctl: SLURM still holds $held after SIGTERM, ${grace}s, scancel and ${kill_wait}s more" >&2
    exit 70
  fi
fi
for f in "$root"/*/*.labels; do
  [ -f "$f" ] && grep -qxF "pdctl.job=$job" "$f" || continue
  b=${f%.labels}
  rm -f "$b.env" "$b.pid" "$b.started" "$b.exit" "$f"
done
forget
echo "$said"
