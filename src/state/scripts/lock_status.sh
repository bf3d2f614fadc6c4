# shellcheck shell=sh
# lock_status.sh LOCK_DIR: `free`, `held` and the holder, or `incomplete`.
lock=$1
if [ -d "$lock" ]; then
  if holder=$(cat "$lock/holder" 2>/dev/null); then
    printf 'held\n%s\n' "$holder"
  else
    echo incomplete
  fi
else
  echo free
fi
