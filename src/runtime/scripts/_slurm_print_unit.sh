# shellcheck shell=sh
# Piece: what every SLURM inspect prints of a unit whose labels are "$f" (files "$base.*"), once
# the caller has set $state, $scheduler and $now: one key=value block (parse_state_blocks), then the
# labels.
  printf 'unit=%s\nstate=%s\npid=%s\nexit_code=%s\nnow=%s\nfinished=%s\nstarted=%s\nscheduler=%s\n' "${base##*/}" "$state" "$(cat "$base.pid" 2>/dev/null)" "$(cat "$base.exit" 2>/dev/null)" "$now" "$(stat -c %Y "$base.exit" 2>/dev/null)" "$(cat "$base.started" 2>/dev/null)" "$scheduler"
  cat "$f"
  echo
