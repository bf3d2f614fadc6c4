# shellcheck shell=sh
# shellcheck disable=SC2086 # `set -- $rest` splits /proc/PID/stat's fields on purpose
# takeover_probe.sh CLI NODE_DIR: for `pdctl start --take-over`, what runs on this node and holds what
# (doctor/takeover.hpp parses it; one tab-separated fact per line, then `end`). It only reads:
#   container ID NAME IMAGE CLUSTER_LABEL PID   every running container of CLI ("" = none); a container
#                                               without labels has none to index (`with` guards it)
#   listen LOCAL_ADDRESS PID                    every listening TCP socket (`ss -Htlnp`, root sees all)
#   gpu PID MIB                                 every GPU compute process (nvidia-smi, if present)
#   proc PID PPID PGID COMM CONTAINER_ID        those processes and their ancestors; CONTAINER_ID is the
#                                               64-hex id in its cgroup path, "" outside a container
#   pdctl-group PGID                            process groups of pdctl's own process units here
cli=$1 dir=$2
say() { printf '%s' "$1"; shift; for field in "$@"; do printf '\t%s' "$field"; done; printf '\n'; }
bounded() { if command -v timeout >/dev/null 2>&1; then timeout 15 "$@"; else "$@"; fi; }
seen=" " wanted=
tab=$(printf '\t')
if [ -n "$cli" ] && command -v "$cli" >/dev/null 2>&1; then
  for id in $(bounded "$cli" ps -q --no-trunc 2>/dev/null); do
    # `|`, not a tab: tabs are IFS white space, and `read` would fold the empty label of a container pdctl
    # did not start into the next field.
    bounded "$cli" inspect --format '{{.Id}}|{{.Name}}|{{.Config.Image}}|{{with .Config.Labels}}{{index . "pdctl.cluster"}}{{end}}|{{.State.Pid}}' "$id" 2>/dev/null |
      while IFS='|' read -r full name image label pid; do say container "$full" "${name#/}" "$image" "$label" "$pid"; done
  done
fi
if command -v ss >/dev/null 2>&1; then
  listeners=$(bounded ss -Htlnp 2>/dev/null | awk '{ s = $0
    while (match(s, /pid=[0-9]+/)) { print $4 "\t" substr(s, RSTART + 4, RLENGTH - 4); s = substr(s, RSTART + RLENGTH) } }')
  while IFS="$tab" read -r local pid; do
    [ -n "$pid" ] || continue
    say listen "$local" "$pid"; wanted="$wanted $pid"
  done <<LISTENERS
$listeners
LISTENERS
fi
if command -v nvidia-smi >/dev/null 2>&1; then
  apps=$(bounded nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null)
  while IFS=', ' read -r pid mib; do
    case $pid in '' | *[!0-9]*) continue ;; esac  # a header line, a message instead of apps
    say gpu "$pid" "$mib"; wanted="$wanted $pid"
  done <<APPS
$apps
APPS
fi
for p in $wanted; do
  while [ -n "$p" ] && [ "$p" -gt 1 ] 2>/dev/null; do
    case $seen in *" $p "*) break ;; esac
    seen="$seen$p "
    stat=$(cat "/proc/$p/stat" 2>/dev/null) || break
    comm=${stat#*(}; comm=${comm%)*}
    rest=${stat##*) }
    set -- $rest
    cid=$(grep -o '[0-9a-f]\{64\}' "/proc/$p/cgroup" 2>/dev/null | head -n 1)
    say proc "$p" "$2" "$3" "$comm" "$cid"
    p=$2
  done
done
for f in "$dir"/*.pid; do
  [ -f "$f" ] && say pdctl-group "$(cat "$f" 2>/dev/null)"
done
say end
