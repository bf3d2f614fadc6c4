#!/usr/bin/env bash
# Tears the SSH test cluster down: the containers on every host (podman rm, inside the host), the
# recorded sshd pids (checked to be ours), every process still inside one of the cluster's network
# namespaces (e.g. a command abandoned after its deadline), then the namespaces, veths and bridge, what
# podman left in the root namespace, then the state directory. Never kills anything by name. Idempotent.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
  pdt_log "not root: nothing to tear down (the cluster needs root)"
  exit 0
fi

# Namespaces: the ones recorded in the env file plus any host directory left by an interrupted up.sh.
namespaces=()
if [ -r "$PDT_ENV_FILE" ]; then
  while IFS='=' read -r key value; do
    case "$key" in PDT_HOST_*_NETNS) namespaces+=("$value") ;; esac
  done <"$PDT_ENV_FILE"
fi
for dir in "$PDT_DIR"/host*; do
  [ -d "$dir" ] && namespaces+=("${PDT_PREFIX}${dir##*/host}")
done
mapfile -t namespaces < <(printf '%s\n' "${namespaces[@]}" | sort -u | grep -E "^${PDT_PREFIX}[0-9]+$")

# 0. Containers: removed by podman inside each host (in parallel), while its namespaces still exist.
podman_hosts=()
for dir in "$PDT_DIR"/host*; do
  [ -d "$dir/binds/var/lib/containers" ] && podman_hosts+=("${dir##*/host}")
done
if [ ${#podman_hosts[@]} -gt 0 ] && command -v podman >/dev/null 2>&1; then
  for i in "${podman_hosts[@]}"; do
    pdt_in_host "$i" timeout 60 podman rm --all --force --time 2 >/dev/null 2>&1 &
  done
  wait
fi

# 1. The sshd processes, by their recorded pids.
pids=()
for pidfile in "$PDT_DIR"/host*/sshd.pid; do
  [ -r "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  if [[ "$pid" =~ ^[0-9]+$ ]] && pdt_is_our_sshd "$pid"; then
    kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
  fi
done
# 2. Whatever still runs inside the namespaces (sessions, abandoned commands): it is ours by construction.
for ns in "${namespaces[@]}"; do
  [ -e "/run/netns/$ns" ] || continue
  for pid in $(ip netns pids "$ns" 2>/dev/null); do
    kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
  done
done
if [ ${#pids[@]} -gt 0 ] && ! pdt_wait_gone 5 "${pids[@]}"; then
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  pdt_wait_gone 5 "${pids[@]}" || pdt_log "warning: some processes did not exit: ${pids[*]}"
fi

# 3. Network: namespaces (their eth0 goes with them), veths, the bridge.
for ns in "${namespaces[@]}"; do
  [ -e "/run/netns/$ns" ] && ip netns del "$ns"
  veth="$PDT_VETH_PREFIX${ns#"$PDT_PREFIX"}"
  ip link del "$veth" 2>/dev/null  # usually gone with its namespace already
done
ip link show "$PDT_BRIDGE" >/dev/null 2>&1 && ip link del "$PDT_BRIDGE"

# 4. What podman left in the root namespace and was not there before up.sh: the two caches, then the
# mount points (only if empty) and the libpod_parent cgroups (rmdir: only those no process is in).
if [ -r "$PDT_ROOT_ABSENT_FILE" ]; then
  mapfile -t absent <"$PDT_ROOT_ABSENT_FILE"
  for path in "${absent[@]}"; do
    case " $PDT_ROOT_CACHES " in *" $path "*) rm -rf "$path" ;; esac
  done
  for path in "${absent[@]}"; do
    [ -d "$path" ] || continue
    case "$path" in
      /sys/fs/cgroup/*) find "$path" -depth -type d -exec rmdir {} + 2>/dev/null ;;
      *) rmdir "$path" 2>/dev/null ;;
    esac
    [ -d "$path" ] && pdt_log "warning: $path is not empty; left in place"
  done
fi

# 5. Files (keys, known_hosts, logs, container storage).
case "$PDT_DIR" in /tmp/*) rm -rf "$PDT_DIR" ;; *) pdt_log "leaving $PDT_DIR in place (not under /tmp)" ;; esac
exit 0
