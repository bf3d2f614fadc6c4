# shellcheck shell=sh
# Piece, after `. ./_env_complete.sh` and once $dir and $unit are set: the unit's env file from stdin
# into $dir/$unit.env, mode 0600 (umask 077: the env may hold secrets), refused unless it arrived
# whole. The umask stays for what the caller writes next.
mkdir -p "$dir" || exit 1
umask 077
cat > "$dir/$unit.env" || exit 1
env_complete "$dir/$unit.env" "$unit"
