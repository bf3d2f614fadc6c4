# shellcheck shell=sh
# container_start.sh DIR UNIT CLI CACHE RUN_ARGV... < ENV_FILE
# The env file reaches the node on stdin (mode 0600), then `--env-file` hands it to the container:
# secrets never appear in argv. A leftover container of the same name (exited) is removed first, its log
# kept in DIR/previous/. CACHE: the unit's kernel cache, made ready before the container mounts it
# (_cache_prepare.sh).
. ./_env_complete.sh
. ./_keep_log.sh
. ./_cache_prepare.sh
dir=$1 unit=$2 cli=$3 cache=$4; shift 4
. ./_receive_env.sh
if "$cli" container inspect "$unit" >/dev/null 2>&1; then
  "$cli" logs --tail 200000 "$unit" 2>&1 | keep_log "$dir" "$unit"
  "$cli" rm -f "$unit" >/dev/null 2>&1
fi
cache_prepare "$cache" "$cli" || { echo "pdctl: $unit: could not prepare its cache directory" >&2; exit 1; }
exec "$@"
