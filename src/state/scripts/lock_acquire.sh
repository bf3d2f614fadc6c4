# shellcheck shell=sh
# lock_acquire.sh LOCK_DIR < HOLDER: takes the deploy lock; prints `acquired`, or `held` and the
# holder, or `incomplete` (a holder being written for 2 s). mkdir is atomic on every filesystem a
# state_dir lives on: exactly one operator creates the directory. The holder is written to a temporary
# name and renamed, so a reader sees all of it or nothing. A loser waits (2 s at most) only for the
# winner's holder file, never for the lock itself. No directory although mkdir failed: it was released
# just now (try again), or mkdir cannot work (after 3 tries: its error, exit 1).
lock=$1
mkdir -p "${lock%/*}" || exit 1
i=0
while :; do
  if err=$(mkdir "$lock" 2>&1); then
    if cat > "$lock/holder.tmp" && mv -f "$lock/holder.tmp" "$lock/holder"; then
      echo acquired; exit 0
    fi
    rm -f "$lock/holder.tmp"; rmdir "$lock" 2>/dev/null; exit 1
  fi
  if [ -d "$lock" ]; then
    if holder=$(cat "$lock/holder" 2>/dev/null); then printf 'held\n%s\n' "$holder"; exit 0; fi
    if [ "$i" -ge 20 ]; then echo incomplete; exit 0; fi
  elif [ "$i" -ge 2 ]; then
    printf '%s\n' "$err" >&2; exit 1
  fi
  i=$((i + 1)); sleep 0.1
done
