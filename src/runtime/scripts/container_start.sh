# shellcheck shell=sh
# container_start.sh DIR UNIT CLI RUN_ARGV... < ENV_FILE
# The env file reaches the node on stdin (mode 0600), then `--env-file` hands it to the container:
# secrets never appear in argv. A leftover container of the same name (exited) is removed first.
. ./_env_complete.sh
dir=$1 unit=$2 cli=$3; shift 3
. ./_receive_env.sh
"$cli" rm -f "$unit" >/dev/null 2>&1
exec "$@"
