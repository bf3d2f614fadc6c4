# shellcheck shell=sh
# lock_release.sh LOCK_DIR TOKEN: releases the lock if TOKEN still holds it (an empty TOKEN: whoever
# does); prints `released`, `free`, or `changed` and the holder now.
lock=$1 token=$2
[ -d "$lock" ] || { echo free; exit 0; }
if [ -n "$token" ]; then
  current=$(sed -n 's/^token=//p' "$lock/holder" 2>/dev/null)
  if [ "$current" != "$token" ]; then echo changed; cat "$lock/holder" 2>/dev/null; exit 0; fi
fi
rm -f "$lock/holder" "$lock/holder.tmp" || exit 1
rmdir "$lock" || exit 1
echo released
