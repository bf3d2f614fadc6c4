# shellcheck shell=sh
# container_log_activity.sh CLI UNIT N
# `logs --timestamps` starts every line with the time the engine received it, in UTC: the newest is the
# last write. Both streams, as `logs` shows them.
cli=$1 unit=$2 n=$3
printf 'now=%s\n\n' "$(date +%s)"
exec "$cli" logs --timestamps --tail "$n" "$unit" 2>&1
