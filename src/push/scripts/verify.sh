# shellcheck shell=sh
# verify.sh TEMP SHA256 FINAL: the uploaded TEMP becomes FINAL only if its digest is SHA256; else it
# is removed and the digest found goes to stderr, exit 3.
. ./_digest.sh
h=$(digest "$1") || { rm -f -- "$1"; exit 1; }
h=${h%% *}
if [ "$h" != "$2" ]; then rm -f -- "$1"; printf '%s\n' "$h" >&2; exit 3; fi
exec mv -f -- "$1" "$3"
