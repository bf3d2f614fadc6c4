# shellcheck shell=sh
# process_inspect.sh DIR: one key=value block per unit recorded in DIR (parse_state_blocks).
. ./_alive.sh
dir=$1
now=$(date +%s)
for f in "$dir"/*.state; do
  [ -e "$f" ] || continue
  unit=${f##*/}; unit=${unit%.state}
  pid=$(cat "$dir/$unit.pid" 2>/dev/null)
  state=exited
  if [ -n "$pid" ] && group_alive "$pid"; then state=running; fi
  printf 'unit=%s\nstate=%s\npid=%s\nexit_code=%s\nnow=%s\nfinished=%s\n' "$unit" "$state" "$pid" "$(cat "$dir/$unit.exit" 2>/dev/null)" "$now" "$(stat -c %Y "$dir/$unit.exit" 2>/dev/null)"
  cat "$f"
  echo
done
