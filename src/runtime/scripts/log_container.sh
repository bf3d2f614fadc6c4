# shellcheck shell=sh
# log_container.sh CLI UNIT CURSOR LOGS_ARGS...: docker/podman print the container's stderr on
# their own stderr: merged to keep the order.
cli=$1 unit=$2 cursor=$3; shift 3
if [ "$cursor" = 1 ]; then date -u '+pdctl-log-cursor=%Y-%m-%dT%H:%M:%S.%NZ'; fi
exec "$cli" logs "$@" "$unit" 2>&1
