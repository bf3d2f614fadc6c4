#!/usr/bin/env bash
# Tears the SSH test cluster down: the recorded sshd pids (checked to be ours), every process still
# inside one of the cluster's network namespaces (e.g. a command abandoned after its deadline), then the
# namespaces, veths and bridge, then the state directory. Never kills anything by name. Idempotent.
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
  veth="pdtv${ns#"$PDT_PREFIX"}"
  ip link del "$veth" 2>/dev/null  # usually gone with its namespace already
done
ip link show "$PDT_BRIDGE" >/dev/null 2>&1 && ip link del "$PDT_BRIDGE"

# 4. Files (keys, known_hosts, logs).
case "$PDT_DIR" in /tmp/*) rm -rf "$PDT_DIR" ;; *) pdt_log "leaving $PDT_DIR in place (not under /tmp)" ;; esac
exit 0
