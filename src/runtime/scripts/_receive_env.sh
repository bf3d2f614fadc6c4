# shellcheck shell=sh
# Piece, after `. ./_env_complete.sh` and once $dir and $unit are set: the unit's env file from stdin
# into $dir/$unit.env, mode 0600 (umask 077: the env may hold secrets), refused unless it arrived
# whole. The umask stays for what the caller writes next. Builtins only (read, printf): a start runs
# this per unit, and a `cat` and a `tail` were two of its processes.
[ -d "$dir" ] || mkdir -p "$dir" || exit 1
umask 077
last=
while IFS= read -r line || [ -n "$line" ]; do printf '%s\n' "$line"; last=$line; done > "$dir/$unit.env" || exit 1
env_ended "$last" "$dir/$unit.env" "$unit"
