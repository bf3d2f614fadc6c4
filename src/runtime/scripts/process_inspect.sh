# shellcheck shell=sh
# process_inspect.sh DIR: one key=value block per unit recorded in DIR (parse_state_blocks). Builtins
# only per unit, except `stat` for a unit that exited: status runs this on every node at once, and on
# nodes that share cores (or a busy node) each fork and exec adds up.
. ./_alive.sh
dir=$1
now=$(date +%s)
for f in "$dir"/*.state; do
  [ -e "$f" ] || continue
  unit=${f##*/}; unit=${unit%.state}
  pid='' code='' finished=''
  read -r pid 2>/dev/null < "$dir/$unit.pid"
  state=exited
  if [ -n "$pid" ] && group_alive "$pid"; then state=running; fi
  if [ -e "$dir/$unit.exit" ]; then
    read -r code 2>/dev/null < "$dir/$unit.exit"
    finished=$(stat -c %Y "$dir/$unit.exit" 2>/dev/null)
  fi
  printf 'unit=%s\nstate=%s\npid=%s\nexit_code=%s\nnow=%s\nfinished=%s\n' "$unit" "$state" "$pid" "$code" "$now" "$finished"
  while IFS= read -r line || [ -n "$line" ]; do printf '%s\n' "$line"; done < "$f"
  echo
done
