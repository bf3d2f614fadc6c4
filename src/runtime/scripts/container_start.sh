# shellcheck shell=sh
# container_start.sh DIR UNIT CLI RUN_ARGV... < ENV_FILE
# The env file reaches the node on stdin (mode 0600), then `--env-file` hands it to the container:
# secrets never appear in argv. A leftover container of the same name (exited) is removed first, its log
# kept in DIR/previous/.
. ./_env_complete.sh
. ./_keep_log.sh
dir=$1 unit=$2 cli=$3; shift 3
. ./_receive_env.sh
if "$cli" container inspect "$unit" >/dev/null 2>&1; then
  "$cli" logs --tail 200000 "$unit" 2>&1 | keep_log "$dir" "$unit"
  "$cli" rm -f "$unit" >/dev/null 2>&1
fi
exec "$@"
