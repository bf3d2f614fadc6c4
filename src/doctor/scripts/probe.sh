# shellcheck shell=sh
# shellcheck disable=SC3045 # `ulimit -l`: dash and bash, the /bin/sh of every node pdctl supports, both have it
# shellcheck disable=SC2016 # the image's `sh -c 'command -v "$1"'` is single-quoted on purpose: $1 is its own
# probe.sh [--gpu] [--cli CLI]... [--image CLI IMAGE]... [--df PATH]... [--listeners]
#          [--program NAME]... [--image-program CLI IMAGE NAME]...
# The doctor's probe (doctor/probe.hpp holds its output format: one tab-separated fact per line, then
# `end`). It only reads: sysfs, /proc/modules, ulimit, `ip -o addr`, `ss -tln`, nvidia-smi queries,
# `<cli> info`, `<cli> image inspect`, df. Commands that can hang on a sick node (nvidia-smi on a wedged
# driver, docker info on a stuck daemon) run under `timeout`, so one bad tool costs a fact, not the
# whole node's answer. Everything else is builtins where a builtin will do: start's preflight runs this
# on every node, and each fork and exec counts on a busy node (it was 35 processes per run, one per
# `ss` line among them, before reads replaced the `cat`s, the `awk`s and a `$(printf '\t')` per line).

sys=${PDCTL_SYSFS_ROOT:-/sys}
say() { printf '%s' "$1"; shift; for field in "$@"; do printf '\t%s' "$field"; done; printf '\n'; }
oneline() { tr '\n\t' '  ' | cut -c1-300; }
bounded() { if command -v timeout >/dev/null 2>&1; then timeout 15 "$@"; else "$@"; fi; }
each_line() {
  kind=$1
  while IFS= read -r line; do say "$kind" "$line"; done <<EOF
$2
EOF
}
disk() {
  at=$1
  while [ ! -e "$at" ] && [ "$at" != / ]; do at=$(dirname "$at"); done
  # POSIX df's second line: filesystem, size, used, available, capacity, mount point (the rest).
  out=$(df -Pk "$at" 2>/dev/null) || return 0
  { read -r _ && read -r _ _ _ avail _ mount && say df "$1" "$avail" "$mount"; } <<EOF
$out
EOF
}
say probe 1
kernel=
read -r kernel 2>/dev/null </proc/sys/kernel/osrelease || kernel=$(uname -r)
say kernel "$kernel"
say memlock "$(ulimit -l)"
if [ -d "$sys/module/nvidia_peermem" ] || grep -q '^nvidia_peermem ' /proc/modules 2>/dev/null; then
  say peermem 1
else
  say peermem 0
fi
if [ -d "$sys/class/infiniband" ]; then
  say ib-class 1
  for dev in "$sys"/class/infiniband/*; do
    [ -e "$dev" ] || continue
    say ib-device "${dev##*/}"
    for port in "$dev"/ports/*; do
      state=
      # read fails on a last line without its newline, but has read it
      [ -r "$port/state" ] && { read -r state <"$port/state" || [ -n "$state" ]; } &&
        say ib-port "${dev##*/}" "${port##*/}" "$state"
    done
  done
else
  say ib-class 0
fi
for nic in "$sys"/class/net/*; do
  [ -e "$nic" ] || continue
  operstate='' flags=''
  read -r operstate 2>/dev/null <"$nic/operstate"
  read -r flags 2>/dev/null <"$nic/flags"
  say net "${nic##*/}" "$operstate" "$flags"
done
if command -v ip >/dev/null 2>&1; then
  say addr-query ok
  # `N: NIC FAMILY ADDRESS/PREFIX ...`
  ip -o addr show 2>/dev/null | while read -r _ nic _ address _; do say addr "$nic" "${address%%/*}"; done
else
  say addr-query missing
fi
while [ $# -gt 0 ]; do
  case $1 in
    --gpu)
      shift
      if ! command -v nvidia-smi >/dev/null 2>&1; then say gpu-query missing; continue; fi
      out=$(bounded nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv,noheader,nounits 2>&1)
      say gpu-query $?
      each_line gpu "$out"
      out=$(bounded nvidia-smi --query-compute-apps=pid,process_name,used_gpu_memory --format=csv 2>&1)
      say apps-query $?
      each_line app "$out"
      ;;
    --cli)
      cli=$2
      shift 2
      if ! command -v "$cli" >/dev/null 2>&1; then say cli "$cli" missing; continue; fi
      case ${cli##*/} in
        *podman*) first='{{.Store.GraphRoot}}' second='{{.DockerRootDir}}' ;;
        *) first='{{.DockerRootDir}}' second='{{.Store.GraphRoot}}' ;;
      esac
      if root=$(bounded "$cli" info --format "$first" 2>/dev/null) && [ -n "$root" ]; then :
      elif root=$(bounded "$cli" info --format "$second" 2>&1) && [ -n "$root" ]; then :
      else say cli "$cli" failing "$(printf '%s' "$root" | oneline)"; continue
      fi
      say cli "$cli" ok "$root"
      disk "$root"
      ;;
    --image)
      cli=$2 image=$3
      shift 3
      command -v "$cli" >/dev/null 2>&1 || continue
      if id=$(bounded "$cli" image inspect --format '{{.Id}}' "$image" 2>&1); then
        say image "$cli" "$image" ok "$id"
      else
        say image "$cli" "$image" missing "$(printf '%s' "$id" | oneline)"
      fi
      ;;
    --df)
      disk "$2"
      shift 2
      ;;
    --program)
      prog=$2
      shift 2
      if where=$(command -v "$prog" 2>/dev/null); then say program - - "$prog" ok "$where"
      else say program - - "$prog" missing; fi
      ;;
    --image-program)
      cli=$2 image=$3 prog=$4
      shift 4
      command -v "$cli" >/dev/null 2>&1 || continue
      bounded "$cli" image inspect "$image" >/dev/null 2>&1 || continue
      if where=$(bounded "$cli" run --rm --pull never --entrypoint sh "$image" -c 'command -v "$1"' pdctl-probe "$prog" 2>&1); then
        say program "$cli" "$image" "$prog" ok "$(printf '%s' "$where" | oneline)"
      elif [ -z "$where" ]; then say program "$cli" "$image" "$prog" missing
      else say program "$cli" "$image" "$prog" failing "$(printf '%s' "$where" | oneline)"; fi
      ;;
    --listeners)
      shift
      if ! command -v ss >/dev/null 2>&1; then say listen-query missing; continue; fi
      say listen-query ok
      # `STATE RECV-Q SEND-Q LOCAL PEER [PROCESS]`
      bounded ss -Htlnp 2>/dev/null | while read -r _ _ _ local _ proc; do say listen "$local" "$proc"; done
      ;;
    *)
      say unknown-argument "$1"
      shift
      ;;
  esac
done
say end
