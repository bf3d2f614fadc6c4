#!/usr/bin/env bash
# The .deb end to end: cpack -G DEB from the build tree, its Depends (dpkg-shlibdeps) and lintian;
# dpkg -i on this machine; the installed pdctl starting a copy of the local simulated cluster
# (loopback block 153) with the pdsim it installed in /usr/libexec/pdctl; man pdctl; and completion
# in an interactive bash of a new account (Debian's /etc/skel/.bashrc, which loads bash-completion),
# typed in tmux. Then dpkg --purge, whatever happened.
# Needs root (dpkg -i) and the tools below: skips (77) without them, except in CI, where that fails.
#   tests/package/deb_test.sh BUILD_DIR
set -euo pipefail
build=$(realpath "${1:?usage: deb_test.sh BUILD_DIR}")
source_dir=$(realpath "$(dirname "$0")/../..")

skip() {
  echo "SKIP: $*"
  [ -n "${CI:-}" ] && exit 1
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
[ "$(id -u)" -eq 0 ] || skip "dpkg -i needs root"
for tool in cpack dpkg-deb dpkg-shlibdeps lintian man tmux; do
  command -v "$tool" >/dev/null || skip "no $tool here (.ci/install-deps)"
done
[ -f /usr/share/bash-completion/bash_completion ] || skip "no bash-completion package here"
if dpkg-query -W -f='${Status}' pdctl 2>/dev/null | grep -q 'install ok installed'; then
  skip "a pdctl package is installed on this machine already; this test would replace and purge it"
fi

work=$(mktemp -d /tmp/pdctl-deb.XXXXXX)
session=pdctl-deb-$$
cluster=$work/cluster
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  [ -x /usr/bin/pdctl ] && [ -f "$cluster/pdctl.yaml" ] && /usr/bin/pdctl -c "$cluster/pdctl.yaml" stop >/dev/null 2>&1
  dpkg --purge pdctl >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# Waits up to 15 s for the tmux pane to show a line matching $1 (a grep -E pattern).
screen_shows() {
  local deadline=$((SECONDS + 15))
  while [ $SECONDS -lt $deadline ]; do
    tmux capture-pane -p -t "$session" | grep -Eq -- "$1" && return 0
    sleep 0.2
  done
  echo "--- screen:" >&2
  tmux capture-pane -p -t "$session" >&2
  return 1
}

# The package.
version=$("$build/pdctl" --version | awk '{print $2}')
cpack -G DEB -B "$work" --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack -G DEB"; }
deb=$work/pdctl_${version}_amd64.deb
[ -f "$deb" ] || fail "cpack made no $(basename "$deb"): $(ls "$work")"
depends=$(dpkg-deb -f "$deb" Depends)
for library in libc6 libssh2-1 libyaml-cpp libssl3 libstdc++6; do
  [[ $depends == *"$library"* ]] || fail "Depends has no $library: $depends"
done
tags=$(lintian --pedantic --info "$deb" 2>&1 | grep -v '^running with root privileges' || true)
[ -z "$tags" ] || fail "lintian: $tags"
echo "ok: $(basename "$deb") ($(stat -c %s "$deb") bytes), lintian clean; Depends: $depends"

# Installed on this machine.
dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
[ "$(/usr/bin/pdctl --version)" = "pdctl $version" ] || fail "/usr/bin/pdctl --version: $(/usr/bin/pdctl --version)"
[ ! -e /usr/bin/pdsim ] || fail "pdsim is on PATH; it belongs in /usr/libexec/pdctl"
echo "ok: dpkg -i; /usr/bin/pdctl $version"

# The heal timer ships disabled: its units are there, nothing enables them, and they run pdctl heal.
for unit in pdctl-heal.service pdctl-heal.timer; do
  [ -f "/lib/systemd/system/$unit" ] || fail "no /lib/systemd/system/$unit in the package"
done
grep -q '^ExecStart=/usr/bin/pdctl -c ${PDCTL_CONFIG} heal ' /lib/systemd/system/pdctl-heal.service ||
  fail "pdctl-heal.service does not run /usr/bin/pdctl heal with its cluster file named"
[ ! -e /etc/systemd/system/timers.target.wants/pdctl-heal.timer ] || fail "the package enabled pdctl-heal.timer"
echo "ok: pdctl-heal.service and .timer in /lib/systemd/system, not enabled"

# The unit's command line, run as systemd runs it when /etc/default/pdctl-heal sets nothing: ${VAR} is
# one word (empty), $VAR splits into words (none), the working directory is /. It must refuse, name the
# file to fix, and start nothing (no progress, no fallback to the embedded simulated cluster).
[ ! -e /etc/default/pdctl-heal ] || skip "/etc/default/pdctl-heal exists on this machine"
read -ra words <<<"$(sed -n 's/^ExecStart=//p' /lib/systemd/system/pdctl-heal.service)"
argv=()
for word in "${words[@]}"; do
  case $word in
    '${PDCTL_CONFIG}') argv+=("") ;;
    '$PDCTL_HEAL_ARGS') ;;
    *) argv+=("$word") ;;
  esac
done
code=0
(cd / && env -i PATH=/usr/bin:/bin "${argv[@]}") >"$work/heal.out" 2>"$work/heal.err" || code=$?
[ "$code" -eq 2 ] || { cat "$work/heal.out" "$work/heal.err"; fail "pdctl-heal.service without a cluster file exited $code, not 2"; }
grep -q '/etc/default/pdctl-heal' "$work/heal.err" || { cat "$work/heal.err"; fail "the refusal does not name /etc/default/pdctl-heal"; }
[ ! -s "$work/heal.out" ] || { cat "$work/heal.out"; fail "pdctl-heal.service without a cluster file printed progress"; }
! grep -q 'embedded simulated cluster (profiles/local)' "$work/heal.err" || fail "pdctl-heal.service fell back to the simulator"
echo "ok: pdctl-heal.service without PDCTL_CONFIG refuses ($(head -1 "$work/heal.err"))"

# The installed pdctl runs the simulated cluster with the installed pdsim.
mkdir -p "$cluster"
for file in "$source_dir"/profiles/local/*; do
  sed -e 's/127\.0\.0\./127.0.153./g' -e "s|/tmp/pdctl-state|$work/state|g" -e 's/cluster: local/cluster: deb/' \
    "$file" >"$cluster/$(basename "$file")"
done
(cd "$work" && env PATH=/usr/bin:/bin CI=true /usr/bin/pdctl -c "$cluster/pdctl.yaml" start >"$work/start.log" 2>&1) ||
  { cat "$work/start.log"; fail "pdctl start with the installed pdsim"; }
# Every unit of the copy (master, 4 prefill, 4 decode, router) is the installed pdsim.
installed=0 other=()
for proc in /proc/[0-9]*; do
  tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | grep -q '127\.0\.153\.' || continue
  grep -q ') Z ' "$proc/stat" 2>/dev/null && continue
  exe=$(readlink "$proc/exe" 2>/dev/null) || continue
  case $exe in
    /usr/libexec/pdctl/pdsim) installed=$((installed + 1)) ;;
    */pdsim) other+=("$exe") ;;
  esac
done
[ "$installed" -eq 10 ] && [ ${#other[@]} -eq 0 ] ||
  fail "$installed units run /usr/libexec/pdctl/pdsim (want 10); others: ${other[*]:-none}"
/usr/bin/pdctl -c "$cluster/pdctl.yaml" smoke >"$work/smoke.log" 2>&1 || { cat "$work/smoke.log"; fail "pdctl smoke"; }
/usr/bin/pdctl -c "$cluster/pdctl.yaml" stop >"$work/stop.log" 2>&1 || { cat "$work/stop.log"; fail "pdctl stop"; }
echo "ok: start, smoke, stop with /usr/libexec/pdctl/pdsim"

# man pdctl.
[ "$(man -w pdctl)" = /usr/share/man/man1/pdctl.1.gz ] || fail "man -w pdctl: $(man -w pdctl)"
page=$(MANWIDTH=100 man pdctl 2>"$work/man.err")
[ ! -s "$work/man.err" ] || fail "man pdctl: $(cat "$work/man.err")"
for expected in "pdctl - deploy prefill/decode" "^VERBS" "pdctl timeline" "pdctl lock release" "EXIT STATUS" \
  "PDCTL_CONFIG" "Mooncake master → prefill"; do
  grep -Eq -- "$expected" <<<"$page" || fail "man pdctl has no '$expected'"
done
echo "ok: man pdctl ($(wc -l <<<"$page") lines)"

# Completion, as a new operator account gets it: Tab in an interactive bash.
home=$work/home
mkdir -p "$home"
cp /etc/skel/.bashrc "$home/"
tmux new-session -d -s "$session" -x 160 -y 40 -c "$home" \
  "env -i HOME=$home TERM=xterm PATH=/usr/bin:/bin bash -i"
screen_shows '[#$] *$' || fail "no prompt from bash -i"
# The .bashrc sets its own prompt; one the patterns below can anchor on.
tmux send-keys -t "$session" "PS1='prompt\$ '; clear" Enter
screen_shows '^prompt\$ *$' || fail "bash -i did not take the new prompt"
tmux send-keys -t "$session" 'pdctl tim' Tab
screen_shows '^prompt\$ pdctl timeline *$' || fail "Tab after 'pdctl tim' did not complete the verb"
tmux send-keys -t "$session" C-u "pdctl -c $cluster/pdctl.yaml logs --node n" Tab Tab
screen_shows '^n1 +n2 +n3 +n4 +n5 +n6 +n7 +n8 *$' || fail "Tab Tab after --node did not list the config's nodes"
tmux send-keys -t "$session" C-u 'complete -p pdctl' Enter
screen_shows '^complete -F _pdctl pdctl$' || fail "complete -p pdctl"
echo "ok: completion in bash -i: verbs, the config's nodes, complete -p pdctl"

dpkg --purge pdctl >/dev/null
[ ! -e /usr/bin/pdctl ] && [ ! -e /usr/libexec/pdctl ] && [ ! -e /usr/share/man/man1/pdctl.1.gz ] ||
  fail "dpkg --purge left files behind"
echo "ok: dpkg --purge removed everything"
