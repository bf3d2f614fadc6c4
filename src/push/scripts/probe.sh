# shellcheck shell=sh
# probe.sh FILE...: per file, `file MODE SHA256`, `other` (not a regular file) or `missing`.
. ./_digest.sh
for f do
  if [ -f "$f" ]; then
    m=$(stat -c %a -- "$f") || m=-
    h=$(digest "$f") || h=-
    printf 'file %s %s\n' "$m" "${h%% *}"
  elif [ -e "$f" ]; then
    echo other
  else
    echo missing
  fi
done
